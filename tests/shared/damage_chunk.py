#!/usr/bin/env python3
"""damage_chunk.py SRC DST FRACTION POS — copy trace SRC to DST with one
byte of a thread-1 chunk's records changed (the chunk FRACTION of the way
through the stream, the byte at POS of its decompressed payload), the
chunk recompressed and its checksums made right: a trace whose reader
accepts the chunk and whose replay goes wrong there (man/idna.5, Chunks).
The trailer's index no longer matches, so readers scan the chunks."""
import struct
import subprocess
import sys


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def main():
    src, dst, fraction, pos = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    f = open(src, 'rb').read()
    off = struct.unpack_from('<I', f, 12)[0]
    chunks = []
    while off + 68 <= len(f) and f[off:off + 4] == b'ICHK':
        size = struct.unpack_from('<I', f, off + 4)[0]
        stream = struct.unpack_from('<I', f, off + 16)[0]
        csize = struct.unpack_from('<I', f, off + 48)[0]
        chunks.append((off, size, stream, csize))
        off += size + csize
    thread = [c for c in chunks if c[2] == 1]
    off, size, _, csize = thread[int(len(thread) * fraction)]
    zstd = lambda args, data: subprocess.run(['zstd', '-q', '-c'] + args, input=data,
                                             capture_output=True, check=True).stdout
    payload = bytearray(zstd(['-d'], f[off + size:off + size + csize]))
    payload[pos % len(payload)] ^= 0x10
    packed = zstd([], bytes(payload))
    header = bytearray(f[off:off + size])
    struct.pack_into('<I', header, 48, len(packed))
    struct.pack_into('<I', header, 60, crc32c(packed))
    struct.pack_into('<I', header, size - 4, crc32c(bytes(header[:size - 4])))
    open(dst, 'wb').write(f[:off] + bytes(header) + packed + f[off + size + csize:])


main()
