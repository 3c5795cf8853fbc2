"""Checks a cubin or fatbin from tilec without cuobjdump: the container's magic and, for a
fatbin, the images it holds (kind and sm of each entry of its header)."""
import struct
import sys

kind, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
if kind == "cubin":
    # ELF, 64-bit, e_machine 190 (EM_CUDA); the sm is in e_flags' low byte.
    assert data[:4] == b"\x7fELF" and data[4] == 2, "not a 64-bit ELF"
    machine = struct.unpack_from("<H", data, 18)[0]
    assert machine == 190, "e_machine %d is not EM_CUDA" % machine
    print("cubin EM_CUDA")
else:
    # The fatbin header: magic 0xBA55ED50, version, header size, size of what follows; then
    # entries: kind (1 = PTX, 2 = ELF), ..., header size, payload size, ..., sm (arch) at +28.
    magic, version, header, size = struct.unpack_from("<IHHQ", data, 0)
    assert magic == 0xBA55ED50, "bad fatbin magic %x" % magic
    offset = header
    while offset < header + size:
        entry_kind, _, entry_header, payload = struct.unpack_from("<HHIQ", data, offset)
        sm = struct.unpack_from("<I", data, offset + 28)[0]
        print("image %s sm_%d" % ({1: "ptx", 2: "elf"}.get(entry_kind, "?"), sm))
        offset += entry_header + payload
