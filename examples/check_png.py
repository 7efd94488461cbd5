#!/usr/bin/env python3
"""Check that a file is a valid 8-bit RGBA PNG: signature, IHDR first, every chunk's CRC, IDAT
inflating to one filter byte plus width*4 bytes per row, IEND last. Prints its size."""
import struct
import sys
import zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
pos, chunks, idat = 8, [], b""
while pos < len(data):
    (length,) = struct.unpack(">I", data[pos:pos + 4])
    kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
    (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
    assert zlib.crc32(kind + body) == crc, "bad CRC in %r" % kind
    chunks.append(kind)
    if kind == b"IDAT":
        idat += body
    if kind == b"IHDR":
        w, h, depth, colour, comp, filt, lace = struct.unpack(">IIBBBBB", body)
    pos += 12 + length
assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND", chunks
assert (depth, colour, comp, filt, lace) == (8, 6, 0, 0, 0), "not 8-bit RGBA"
raw = zlib.decompress(idat)
assert len(raw) == h * (w * 4 + 1), "IDAT size"
print("valid PNG: %ux%u 8-bit RGBA, chunks %s" % (w, h, " ".join(c.decode() for c in chunks)))
