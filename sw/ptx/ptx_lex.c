// PTX tokens: identifiers (opcodes with their modifiers, "%r12", "%tid.x", "$L__BB0_2",
// directives ".reg"), numbers (decimal, 0x hex, 0f/0d float bits), strings and punctuation.
// Comments (// and /* */) and white space are skipped; the line number is kept for errors.
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

void ptx_fail(ptx_ctx *c, ptx_status st, int line, const char *instr, const char *fmt, ...) {
  if (c->err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err->message, sizeof c->err->message, fmt, ap);
    va_end(ap);
    c->err->line = line;
    snprintf(c->err->instr, sizeof c->err->instr, "%s", instr ? instr : "");
  }
  c->status = st;
  longjmp(c->fail, 1);
}

void *ptx_grow(ptx_ctx *c, void *p, int *cap, int need, size_t elem) {
  if (need <= *cap) return p;
  int n = *cap ? *cap : 16;
  while (n < need) n *= 2;
  void *q = realloc(p, (size_t)n * elem);
  if (!q) ptx_fail(c, PTX_ERR_NO_MEMORY, 0, NULL, "out of host memory");
  memset((char *)q + (size_t)*cap * elem, 0, (size_t)(n - *cap) * elem);
  *cap = n;
  return q;
}

static int ident_start(int ch) { return isalpha(ch) || ch == '_' || ch == '$' || ch == '%' || ch == '.'; }
static int ident_char(int ch) { return isalnum(ch) || ch == '_' || ch == '$' || ch == '.'; }

static void skip_space(ptx_ctx *c) {
  for (;;) {
    while (c->pos < c->len && isspace((unsigned char)c->text[c->pos])) {
      if (c->text[c->pos] == '\n') ++c->line;
      ++c->pos;
    }
    if (c->pos + 1 < c->len && c->text[c->pos] == '/' && c->text[c->pos + 1] == '/') {
      while (c->pos < c->len && c->text[c->pos] != '\n') ++c->pos;
    } else if (c->pos + 1 < c->len && c->text[c->pos] == '/' && c->text[c->pos + 1] == '*') {
      c->pos += 2;
      while (c->pos + 1 < c->len && !(c->text[c->pos] == '*' && c->text[c->pos + 1] == '/')) {
        if (c->text[c->pos] == '\n') ++c->line;
        ++c->pos;
      }
      c->pos += 2;
      if (c->pos > c->len) c->pos = c->len;
    } else {
      return;
    }
  }
}

void ptx_next(ptx_ctx *c) {
  skip_space(c);
  tok *t = &c->cur;
  t->line = c->line;
  t->s = c->text + c->pos;
  t->len = 0;
  if (c->pos >= c->len || c->text[c->pos] == '\0') {
    t->kind = T_END;
    return;
  }
  unsigned char ch = (unsigned char)c->text[c->pos];
  size_t p = c->pos;
  if (ident_start(ch)) {
    ++p;
    for (;;) {  // "L1::evict_last" in a modifier is one name
      if (p < c->len && ident_char((unsigned char)c->text[p])) ++p;
      else if (p + 1 < c->len && c->text[p] == ':' && c->text[p + 1] == ':') p += 2;
      else break;
    }
    t->kind = T_IDENT;
  } else if (isdigit(ch)) {
    ++p;
    while (p < c->len && (isalnum((unsigned char)c->text[p]) || c->text[p] == '.')) ++p;
    t->kind = T_NUM;
  } else if (ch == '"') {
    ++p;
    while (p < c->len && c->text[p] != '"' && c->text[p] != '\n') ++p;
    if (p >= c->len || c->text[p] != '"')
      ptx_fail(c, PTX_ERR_INVALID_PTX, c->line, NULL, "unterminated string");
    ++p;
    t->kind = T_STR;
  } else {
    ++p;
    t->kind = T_PUNCT;
  }
  t->len = (int)(p - c->pos);
  c->pos = p;
}

int ptx_is(const ptx_ctx *c, const char *s) {
  size_t n = strlen(s);
  return c->cur.kind != T_END && (size_t)c->cur.len == n && memcmp(c->cur.s, s, n) == 0;
}

int ptx_accept(ptx_ctx *c, const char *s) {
  if (!ptx_is(c, s)) return 0;
  ptx_next(c);
  return 1;
}

void ptx_tokcpy(char *dst, size_t n, const tok *t) {
  size_t l = (size_t)t->len < n - 1 ? (size_t)t->len : n - 1;
  memcpy(dst, t->s, l);
  dst[l] = '\0';
}

void ptx_expect(ptx_ctx *c, const char *s) {
  if (ptx_accept(c, s)) return;
  char got[48];
  ptx_tokcpy(got, sizeof got, &c->cur);
  ptx_fail(c, PTX_ERR_INVALID_PTX, c->cur.line, NULL, "expected '%s', found '%s'", s,
           c->cur.kind == T_END ? "end of text" : got);
}

// Integers (decimal, 0x.. hex, 0b.. binary, octal with a leading 0, an optional U suffix) and
// float literals as their bits: 0fXXXXXXXX (f32) and 0dXXXXXXXXXXXXXXXX (f64).
int64_t ptx_number(ptx_ctx *c, const tok *t) {
  char buf[40];
  ptx_tokcpy(buf, sizeof buf, t);
  size_t n = strlen(buf);
  if (n && (buf[n - 1] == 'U' || buf[n - 1] == 'u')) buf[--n] = '\0';
  char *end = NULL;
  uint64_t v;
  if (n > 2 && buf[0] == '0' && (buf[1] == 'f' || buf[1] == 'F' || buf[1] == 'd' || buf[1] == 'D'))
    v = strtoull(buf + 2, &end, 16);
  else if (n > 2 && buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B'))
    v = strtoull(buf + 2, &end, 2);
  else
    v = strtoull(buf, &end, 0);
  if (!end || *end != '\0' || n == 0)
    ptx_fail(c, PTX_ERR_INVALID_PTX, t->line, NULL, "bad number '%s'", buf);
  return (int64_t)v;
}
