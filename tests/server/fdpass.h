/* One message with at most one file descriptor over a Unix socket (SCM_RIGHTS), for the
 * two-process tests of tests/server. The examples and the NVIDIA probe keep their own copies:
 * each is meant to be read (and built on the GPU machine) on its own. */
#pragma once
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Sends len bytes of buf, and fd when fd >= 0. 0 when all of it went, -1 otherwise. */
static inline int fdpass_send(int s, const void *buf, size_t len, int fd)
{
    struct iovec iov = {(void *)buf, len};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } cm;
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0) {
        memset(&cm, 0, sizeof cm);
        mh.msg_control = cm.buf;
        mh.msg_controllen = sizeof cm.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    return sendmsg(s, &mh, 0) == (ssize_t)len ? 0 : -1;
}

/* Receives len bytes into buf and, when fd is not NULL, the descriptor that came with them (or
 * -1). 0 when all len bytes came, -1 otherwise. */
static inline int fdpass_recv(int s, void *buf, size_t len, int *fd)
{
    struct iovec iov = {buf, len};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } cm;
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf,
                        .msg_controllen = sizeof cm.buf};
    if (fd) *fd = -1;
    if (recvmsg(s, &mh, 0) != (ssize_t)len) return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    if (c && c->cmsg_type == SCM_RIGHTS && fd) memcpy(fd, CMSG_DATA(c), sizeof *fd);
    return 0;
}
