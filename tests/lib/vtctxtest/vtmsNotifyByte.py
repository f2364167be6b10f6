#!/usr/bin/env python3
"""HotSpot's JVMTI virtual-thread notification byte of a live JVM, read from outside.

The byte (JvmtiVTMSTransitionDisabler::_VTMS_notify_jvmti_events on JDK 21-25,
MountUnmountDisabler::_notify_jvmti_events on JDK 26+) turns 1 the first time anything creates a
JVMTI environment (GetEnv(JVMTI_*): an agent, -javaagent, JFR, JDWP) and never goes back; while it
is 1 every virtual-thread mount and unmount takes HotSpot's slow path. Its names are the reader's
table of names that JDK versions change (reader-bpf/hotspot/hotspotNames.h,
VTCTX_JVMTI_NOTIFY_NAMES), tried in order: the first one libjvm.so's .symtab has gives the address
(the file the JVM mapped, through /proc/PID/map_files), /proc/PID/mem the value.

  python3 -m vtctxtest.vtmsNotifyByte PID
      prints 0 or 1; exit 2 if the symbol or the mapping is missing
"""
import os
import re
import struct
import sys

NAMES_TABLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "reader-bpf", "hotspot",
                           "hotspotNames.h")


def notify_symbols(table=NAMES_TABLE):
    """The symbols of the VTCTX_JVMTI_NOTIFY_NAMES group of hotspotNames.h, in its order."""
    with open(table) as f:
        text = f.read()
    group = re.search(r"#define VTCTX_JVMTI_NOTIFY_NAMES\(X\)((?:.*\\\n)*.*\n)", text)
    if not group:
        raise KeyError(f"{table}: no VTCTX_JVMTI_NOTIFY_NAMES group")
    body = group.group(1).replace("\\\n", " ")
    symbols = re.findall(r'X\(\s*\w+,\s*Symbol,\s*"(\w+)"', body)
    if not symbols:
        raise KeyError(f"{table}: VTCTX_JVMTI_NOTIFY_NAMES has no Symbol row")
    return [s.encode() for s in symbols]


def elf_symbol(path, names):
    """(st_value, segments) of the first of `names` the ELF's .symtab has; segments: [(vaddr,
    offset)] of PT_LOAD."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path}: not a 64-bit little-endian ELF")
    e_phoff, e_shoff = struct.unpack_from("<QQ", data, 0x20)
    e_phentsize, e_phnum, e_shentsize, e_shnum = struct.unpack_from("<HHHH", data, 0x36)
    loads = []
    for i in range(e_phnum):
        p_type, _, p_offset, p_vaddr = struct.unpack_from("<IIQQ", data, e_phoff + i * e_phentsize)
        if p_type == 1:
            loads.append((p_vaddr, p_offset))
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * e_shentsize)
                for i in range(e_shnum)]
    found = {}
    for sh in sections:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]
        sym_off, sym_size, entsize = sh[4], sh[5], sh[9]
        for k in range(sym_size // entsize):
            st_name, _, _, _, st_value, _ = struct.unpack_from("<IBBHQQ", data, sym_off + k * entsize)
            start = strtab[4] + st_name
            end = data.index(b"\0", start)
            if data[start:end] in names:
                found.setdefault(data[start:end], st_value)
    for name in names:
        if name in found:
            return found[name], loads
    raise KeyError(f"{path}: none of {', '.join(n.decode() for n in names)} in .symtab")


def notify_byte(pid):
    maps = []
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[5].endswith("/libjvm.so"):
                start, end = (int(x, 16) for x in parts[0].split("-"))
                maps.append((start, end, int(parts[2], 16)))
    if not maps:
        raise KeyError(f"pid {pid}: no libjvm.so mapped")
    first = min(maps)
    value, loads = elf_symbol(f"/proc/{pid}/map_files/{first[0]:x}-{first[1]:x}",
                              notify_symbols())
    # The load bias from the mapping of file offset 0 (the first PT_LOAD's page).
    vaddr0 = next(v for v, off in loads if off == 0)
    bias = next(start for start, _, off in maps if off == 0) - vaddr0
    with open(f"/proc/{pid}/mem", "rb") as mem:
        mem.seek(bias + value)
        return mem.read(1)[0]


def main():
    try:
        print(notify_byte(int(sys.argv[1])))
    except (KeyError, ValueError, StopIteration) as e:
        print(f"vtmsNotifyByte: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
