#!/usr/bin/env python3
"""vtctx-reader as root against targets that shape what it parses (docs/reader.md, "Threat
model"): every byte the reader reads of a target (its mapped files, code cache, stacks, names) is
the target's to choose. The targets run as nobody; every profile runs in a memory cgroup of
256 MiB and must end within its duration plus kGraceS. Each case is one ctest
(reader.hostile_input.<case>) and failed on 2c72051:

  symbol_names    a function whose mangled name demangles to ~2^28 characters, and 20,000 function
                  symbols sharing one 64 KiB name: profile --format folded ends, under 256 MiB
  cfi_mappings    a JVM maps one file with a 2 Mi-row .eh_frame 30 times and spins on a stack
                  through all of them: profile ends under 256 MiB, the stacks unwound through
  perf_map_overlap  a JVM whose perf map is 160,000 nested ranges (kept read-only so HotSpot cannot
                  replace it): profile -d 1 ends within 1 + kGraceS s
  sigbus          a mapped ELF truncated by its owner while the reader parses it (on inotify's
                  IN_OPEN): resolve, syscalls, profile and attach die of no signal
  elf_huge        a 12 KB sparse file claiming an 8 GiB .dynsym: resolve ends within 2 s, attach
                  --timeout 2 within 4 s
  exec_setuid     the target execs a setuid-root program during syscalls: no event of the new
                  program, and the run ends by itself ("target exec'd")
  escapes         escape sequences and C1 controls in module paths, thread names, attribute keys,
                  resource attributes and symbol names: no raw control byte and no invalid UTF-8
                  in any output (resolve, syscalls, profile, text and JSON, stdout and stderr)
  vfork           a thread in vfork() whose child never execs: resolve ends, the thread unread
  svg             a 200-character CJK name and names with control characters: the SVG is
                  well-formed XML
  output_symlink  --output names another user's symlink to a root-owned 0600 file (in a directory
                  of theirs): the file is left as it was

  hostileInputTest.py --case NAME --reader R --target hostileTarget --names-lib L --bomb-lib L
                      --writer ctxWriter_dl --tlsdesc-lib L --java J --agent libvtctx.so
                      --classes DIR --natives L --protoc P --proto processContext.proto
"""
import ctypes
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ElementTree

from vtctxtest import JvmTarget, check, fail, readable_by_all, require_root, required_args_parser
from vtctxtest.memoryLimit import run_limited
from vtctxtest.processContextProto import compile_proto, encode

NOBODY = 65534
SYSTEM_PYTHON = "/usr/bin/python3"
LIMIT = 256 << 20   # the reader's memory bound under a hostile target (docs/reader.md)
GRACE_S = 15        # beyond a profile's duration: the JIT's second map, symbols, the report


def as_nobody():
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def nobody_dir():
    """A new 0755 directory of nobody's under /tmp, removed at the end."""
    d = tempfile.mkdtemp(prefix="vtctx-hostile-")
    os.chown(d, NOBODY, NOBODY)
    os.chmod(d, 0o755)
    return d


def give(path):
    os.chown(path, NOBODY, NOBODY)
    os.chmod(path, 0o755)
    return path


# Where nobody's copy of hostileTarget finds libctxfix_tlsdesc.so (its RUNPATH names the build
# tree, which may be private): set by main.
TARGET_ENV = None


def start(argv, what):
    """A target as nobody (JvmTarget: stdin commands, {"event":"ready","pid":P})."""
    t = JvmTarget(argv, preexec_fn=as_nobody, cwd="/", echo=f"{what}: ", env=TARGET_ENV)
    return t, t.ready_pid(what=f"{what} ready")


def profile(args, pid, fmt, duration, *extra):
    """profile under the memory limit; checks it ended well and in time, returns the run."""
    argv = [args.reader, "profile", "--pid", str(pid), "--format", fmt, "-d", str(duration),
            *extra]
    run = run_limited(argv, LIMIT, timeout=duration + 120)
    print(f"profile --format {fmt} -d {duration} {' '.join(extra)}: {run.describe()}")
    print(run.stderr.decode(errors="replace")[-3000:])
    check(run.returncode >= 0, f"the reader died of signal {-run.returncode} ({run.describe()})")
    check(run.oom_kills == 0, f"the reader exceeded {LIMIT >> 20} MiB ({run.describe()})")
    check(run.seconds <= duration + GRACE_S,
          f"profile -d {duration} took {run.seconds:.1f} s (bound: {duration + GRACE_S} s)")
    return run


class Run:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def attached_run(argv, action, timeout=60):
    """A streaming reader command: started, waited on until attached, `action()` run, then
    stopped with SIGINT unless it ended by itself within `timeout`. Output kept as bytes (what
    reached the terminal, invalid UTF-8 included). Returns (Run, ended by itself)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err_lines, out_chunks = [], []
    attached = threading.Event()

    def read_err():
        for line in proc.stderr:
            err_lines.append(line)
            if line.startswith(b"vtctx-reader: attached"):
                attached.set()
        attached.set()

    threads = [threading.Thread(target=read_err, daemon=True),
               threading.Thread(target=lambda: out_chunks.append(proc.stdout.read()),
                                daemon=True)]
    for t in threads:
        t.start()
    try:
        check(attached.wait(60) and proc.poll() is None,
              f"{argv[1]} did not attach: {b''.join(err_lines)!r}")
        action()
        try:
            proc.wait(timeout=timeout)
            by_itself = True
        except subprocess.TimeoutExpired:
            proc.send_signal(2)
            proc.wait(timeout=60)
            by_itself = False
        for t in threads:
            t.join(30)
        return Run(proc.returncode, b"".join(out_chunks), b"".join(err_lines)), by_itself
    finally:
        if proc.poll() is None:
            proc.kill()


def no_raw_controls(data, what):
    """No C0 control but newline and tab, no DEL, no C1 control, only valid UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"{what}: invalid UTF-8 reached the output ({e}): {data[max(0, e.start - 40):e.end + 40]!r}")
    for i, c in enumerate(text):
        if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f:
            fail(f"{what}: control character U+{ord(c):04X} reached the output: "
                 f"{text[max(0, i - 40):i + 40]!r}")


# --- ELF files made here ----------------------------------------------------------------------

def elf_strtab_patch(path, old, new):
    """Rewrites every occurrence of the bytes `old` (a symbol name) by `new` (same length)."""
    assert len(old) == len(new)
    data = open(path, "rb").read()
    check(old in data, f"{old[:40]!r} not in {path}")
    open(path, "wb").write(data.replace(old, new))


def sections(data):
    """{name: (offset, size, link, entsize, index)} of an ELF64 image."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_off = heads[shstrndx][4]
    out = {}
    for i, h in enumerate(heads):
        end = data.index(b"\0", names_off + h[0])
        out[data[names_off + h[0]:end].decode()] = (h[4], h[5], h[6], h[9], i)
    return out


def shared_names_elf(count, name_bytes):
    """An ELF whose code at 0x1000 spins (jmp .) and whose .symtab has `count` function symbols
    there, every one named by the one `name_bytes`-byte string of its .strtab."""
    strtab = b"\0" + b"L" * name_bytes + b"\0"
    sym = struct.pack("<IBBHQQ", 1, 0x12, 0, 1, 0x1000, 16)  # GLOBAL FUNC, section 1 (.text)
    symtab = bytes(24) + sym * count
    strtab_off = 0x2000
    symtab_off = (strtab_off + len(strtab) + 7) & ~7
    image, _ = elf_with_sections([(".text", 1, 0x1000, b"\xeb\xfe", 0x1000, 0, 0, 0x100),
                                  (".strtab", 3, strtab_off, strtab, 0, 0, 0),
                                  (".symtab", 2, symtab_off, symtab, 0, 2, 24)],
                                 phdr=(0, symtab_off + len(symtab), 5))
    return image


def elf_with_sections(sections_spec, phdr=None, size=None):
    """An ELF64 x86-64 ET_DYN image: [(name, type, offset, bytes, addr, link, entsize)] placed at
    their offsets (a section's bytes may be shorter than its claimed size: (name, type, offset,
    bytes, addr, link, entsize, claimed_size)); a PT_LOAD `phdr` (offset, filesz, flags) if given.
    Returns (bytes, file size)."""
    names = b"\0" + b"".join(s[0].encode() + b"\0" for s in sections_spec) + b".shstrtab\0"
    body_end = max([s[2] + len(s[3]) for s in sections_spec] + [0x1000])
    shstr_off = (body_end + 7) & ~7
    shoff = (shstr_off + len(names) + 7) & ~7
    shnum = len(sections_spec) + 2
    image = bytearray(shoff + shnum * 64)
    struct.pack_into("<4sBBBBB7xHHIQQQIHHHHHH", image, 0, b"\x7fELF", 2, 1, 1, 0, 0, 3, 62, 1, 0,
                     64 if phdr else 0, shoff, 0, 64, 56, 1 if phdr else 0, 64, shnum, shnum - 1)
    if phdr:
        offset, filesz, flags = phdr
        struct.pack_into("<IIQQQQQQ", image, 64, 1, flags, offset, offset, offset, filesz, filesz,
                         0x1000)
    name_at = 1
    for i, spec in enumerate(sections_spec, start=1):
        name, typ, off, content, addr, link, entsize = spec[:7]
        claimed = spec[7] if len(spec) > 7 else len(content)
        image[off:off + len(content)] = content
        struct.pack_into("<IIQQQQIIQQ", image, shoff + i * 64, name_at, typ, 2, addr, off, claimed,
                         link, 0, 8, entsize)
        name_at += len(name) + 1
    image[shstr_off:shstr_off + len(names)] = names
    struct.pack_into("<IIQQQQIIQQ", image, shoff + (shnum - 1) * 64, name_at, 3, 0, 0, shstr_off,
                     len(names), 0, 0, 1, 0)
    return bytes(image), size or len(image)


def big_dynsym_elf(symbols):
    """.dynsym of `symbols` defined function symbols, all named "x" (the scan of a reader that
    looks for otel_thread_ctx_v1 or HotSpot's symbols reads every one)."""
    dynstr = b"\0x\0"
    sym = struct.pack("<IBBHQQ", 1, 0x12, 0, 1, 0x1000, 16)  # GLOBAL FUNC, section 1
    dynsym = bytes(24) + sym * symbols
    image, _ = elf_with_sections([(".dynstr", 3, 0x1000, dynstr, 0x1000, 0, 0),
                                  (".dynsym", 11, 0x2000, dynsym, 0x2000, 1, 24)])
    return image


def eh_frame_elf(rows):
    """The cfi_mappings file: code at 0x1000 (jmp . at its start), `rows` bytes of it each a row
    of its .eh_frame (CFA = rsp + 8, return address at CFA - 8), all in one PT_LOAD."""
    text_off, text_size = 0x1000, rows + 0x200
    eh_off = (text_off + text_size + 0xfff) & ~0xfff
    cie_body = (struct.pack("<I", 0) + b"\x01zR\x00" + b"\x01" + b"\x78" + b"\x10" + b"\x01\x1b" +
                b"\x0c\x07\x08" + b"\x90\x01")
    cie_body += b"\0" * (-(len(cie_body) + 4) % 8)
    cie = struct.pack("<I", len(cie_body)) + cie_body
    fde_start = eh_off + len(cie)
    pc_begin = text_off - (fde_start + 8)  # pcrel sdata4, from the field at fde_start + 8
    fde_body = struct.pack("<IiI", len(cie) + 4, pc_begin, text_size) + b"\x00" + b"\x41" * rows
    fde_body += b"\0" * (-(len(fde_body) + 4) % 8)
    eh = cie + struct.pack("<I", len(fde_body)) + fde_body + b"\0\0\0\0"
    image, _ = elf_with_sections([(".text", 1, text_off, b"\xeb\xfe", text_off, 0, 0, text_size),
                                  (".eh_frame", 1, eh_off, eh, eh_off, 0, 0)],
                                 phdr=(0, eh_off + len(eh), 5))
    return image


# --- cases --------------------------------------------------------------------------------------

def symbol_names(args):
    work = nobody_dir()
    try:
        bomb = give(shutil.copy(args.bomb_lib, os.path.join(work, "libbomb.so")))
        target, pid = start([args.target, "spin", bomb, "hostile_spin_bomb"], "bomb")
        try:
            run = profile(args, pid, "folded", 2)
            out = run.stdout.decode()
            check(run.returncode == 0, f"exit {run.returncode}")
            lines = [l for l in out.splitlines() if "bomb(P<" in l]
            check(lines, f"no sample in bomb(): {out[:2000]}")
            check(all(len(l) < 64 << 10 for l in lines), "a frame name beyond its bound")
        finally:
            target.stop()
        shared = os.path.join(work, "shared.so")
        open(shared, "wb").write(shared_names_elf(20000, 64 << 10))
        give(shared)
        target, pid = start([args.target, "jump", shared, "0x1000"], "shared names")
        try:
            run = profile(args, pid, "folded", 2)
            check(run.returncode == 0, f"exit {run.returncode}")
            check("LLLLLLLL" in run.stdout.decode(), "no sample named by the shared 64 KiB name")
        finally:
            target.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def cfi_mappings(args):
    work = nobody_dir()
    try:
        path = os.path.join(work, "cfi.so")
        open(path, "wb").write(eh_frame_elf(2 << 20))
        give(path)
        natives = readable_by_all(args.natives)
        jvm, pid = start([args.java, f"-agentpath:{args.agent}", "-cp", args.classes, "HostileJvm",
                          "mappings", natives, path, "30"], "jvm")
        try:
            run = profile(args, pid, "folded", 3)
            check(run.returncode == 0, f"exit {run.returncode}")
            deepest = max((l.count("cfi.so+0x1100") for l in run.stdout.decode().splitlines()),
                          default=0)
            print(f"deepest walk through the mappings: {deepest} frames")
            check(deepest >= 20, "the unwinder did not walk the mappings (the attack was not run)")
        finally:
            jvm.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def perf_map_overlap(args):
    jvm, pid = start([args.java, f"-agentpath:{args.agent}", "-cp", args.classes, "HostileJvm",
                      "perfmap", "160000"], "jvm")
    try:
        run = profile(args, pid, "folded", 1)
        check(run.returncode == 0, f"exit {run.returncode}")
        check("nested_" in run.stdout.decode(), "the hostile perf map was not read")
    finally:
        jvm.stop()
        try:
            os.unlink(f"/tmp/perf-{pid}.map")
        except OSError:
            pass


# The attacker of the sigbus case, as nobody: on "arm", writes the file whole, waits for the reader
# to open it (inotify IN_OPEN), then 20 ms later (while the reader parses) truncates it to 4 KiB.
_TRUNCATER = r"""
import ctypes, os, struct, sys, time
path, size = sys.argv[1], int(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
full = open(path, "rb").read()
for line in sys.stdin:
    with open(path, "r+b") as f:
        f.truncate(0)
        f.write(full)
    fd = libc.inotify_init()
    libc.inotify_add_watch(fd, path.encode(), 0x20)  # IN_OPEN
    print("armed", flush=True)
    os.read(fd, 4096)
    time.sleep(0.02)
    os.truncate(path, 4096)
    os.close(fd)
    print("truncated", flush=True)
"""


def sigbus(args):
    work = nobody_dir()
    try:
        path = os.path.join(work, "libjvm.so")  # attach parses a libjvm.so's .dynsym too
        open(path, "wb").write(big_dynsym_elf((30 << 20) // 24 - 4))
        give(path)
        target, pid = start([args.target, "map", path], "target")
        attacker = subprocess.Popen([SYSTEM_PYTHON, "-c", _TRUNCATER, path, "0"],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                    preexec_fn=as_nobody)
        try:
            for command in (["resolve"], ["syscalls", "--syscall", "write", "-d", "1"],
                            ["profile", "-d", "1"], ["attach", "--timeout", "2"]):
                attacker.stdin.write("arm\n")
                attacker.stdin.flush()
                check(attacker.stdout.readline().strip() == "armed", "attacker not armed")
                run = run_limited([args.reader, *command, "--pid", str(pid)], LIMIT, timeout=60)
                said = attacker.stdout.readline().strip()
                print(f"{' '.join(command)}: {run.describe()}; attacker: {said}")
                print(run.stderr.decode(errors="replace")[-1500:])
                check(said == "truncated", "the reader never opened the file: attack not run")
                check(run.returncode >= 0,
                      f"{command[0]} died of signal {-run.returncode} (the file shrank under it)")
        finally:
            attacker.kill()
            target.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def elf_huge(args):
    work = nobody_dir()
    try:
        path = os.path.join(work, "libjvm.so")
        dynstr = b"\0x\0"
        claimed = (8 << 30) // 24 * 24  # a whole number of symbols, or libelf refuses it
        image, _ = elf_with_sections([(".dynstr", 3, 0x1000, dynstr, 0x1000, 0, 0),
                                      (".dynsym", 11, 0x2000, bytes(48), 0x2000, 1, 24, claimed)])
        # Section headers stay where they are; the file is sparse up to past the claimed .dynsym.
        with open(path, "wb") as f:
            f.write(image)
            f.truncate(0x2000 + claimed + 0x1000)
        give(path)
        print(f"{path}: {os.stat(path).st_blocks * 512} bytes on disk, "
              f"{os.stat(path).st_size} claimed")
        target, pid = start([args.target, "map", path], "target")
        try:
            # attach waits its --timeout for a listener this "JVM" never starts: 2 s more.
            for command, bound in ((["resolve"], 2), (["attach", "--timeout", "2"], 4)):
                run = run_limited([args.reader, *command, "--pid", str(pid)], LIMIT, timeout=120)
                print(f"{command[0]}: {run.describe()}")
                print(run.stderr.decode(errors="replace")[-1500:])
                check(run.returncode >= 0, f"{command[0]} died of signal {-run.returncode}")
                check(run.seconds < bound, f"{command[0]} took {run.seconds:.1f} s on a claimed "
                                           f"8 GiB .dynsym (bound: {bound} s)")
        finally:
            target.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def setuid_program():
    for p in ("/usr/bin/su", "/usr/bin/passwd", "/usr/bin/newgrp", "/usr/bin/chsh"):
        try:
            st = os.stat(p)
        except OSError:
            continue
        if st.st_mode & stat.S_ISUID and st.st_uid == 0:
            return p
    fail("no setuid-root program to exec")


def exec_setuid(args):
    program = setuid_program()
    target, pid = start([args.target, "exec", program], "target")
    try:
        def go():
            target.send("go")
            target.wait_json(lambda l: '"exec"' in l, 30, "the exec")

        run, by_itself = attached_run([args.reader, "syscalls", "--pid", str(pid), "--syscall",
                                       "all", "--format", "json"], go, timeout=20)
        err = run.stderr.decode(errors="replace")
        print(err[-2000:])
        events = [json.loads(l) for l in run.stdout.decode().splitlines() if l.startswith("{")]
        execs = [e["ts_ns"] for e in events if e["syscall"] == "execve"]
        check(execs, "no execve event: the attack was not seen")
        after = [e for e in events if e["ts_ns"] > execs[0] and e["syscall"] != "execve"]
        print(f"{len(events)} events, {len(after)} after the execve of {program}")
        if after:
            fail(f"{len(after)} events of {program} (running as root) read under pid {pid}, "
                 f"e.g. {after[0]}")
        check(by_itself and "target exec'd" in err, "the run did not end at the exec by itself")
    finally:
        target.proc.kill()


def escapes(args, pb):
    work = nobody_dir()
    hostile = "\x1b]0;pwned\x07\x1b[31m\u009b31m"
    try:
        lib_dir = os.path.join(work, "lib" + hostile)
        os.mkdir(lib_dir)
        give(lib_dir)
        lib = give(shutil.copy(args.tlsdesc_lib, os.path.join(lib_dir, "libctx.so")))
        writer = give(shutil.copy(args.writer, os.path.join(work, "w" + hostile)))
        w, pid = start([writer, "--dlopen", lib], "writer")
        names = give(shutil.copy(args.names_lib, os.path.join(work, "libnames.so")))
        elf_strtab_patch(names, b"hostile_name_escapes_placeholder_0123456789",
                         (b"esc" + hostile.encode() + b"\xff\xfe").ljust(43, b"_")[:43])
        spinner, spin_pid = start([args.target, "spin", names, "hostile_spin_escapes"], "spinner")
        try:
            key = "http.route" + hostile
            payload = encode(pb, [("service.name", "svc" + hostile)],
                             keys=[key, "user" + hostile]).SerializeToString()
            w.send("pctx " + payload.hex())
            w.wait_json(lambda l: "pctx_done" in l, 30, "pctx published")
            w.send("round 1")
            w.wait_json(lambda l: "round_done" in l, 30, "round 1")
            outputs = []
            for command in (["resolve"], ["resolve", "--format", "json"],
                            ["profile", "-d", "1", "--group-by", key],
                            ["profile", "-d", "1", "--format", "json"]):
                run = run_limited([args.reader, *command, "--pid", str(pid)], LIMIT, timeout=60)
                print(f"{' '.join(command)}: {run.describe()}")
                outputs.append((command, run))
            def round_2():
                w.send("round 2")
                w.wait_json(lambda l: "round_done" in l, 30, "round 2")

            run, _ = attached_run([args.reader, "syscalls", "--pid", str(pid), "--syscall",
                                   "write"], round_2, timeout=1)
            outputs.append((["syscalls"], run))
            folded = profile(args, spin_pid, "folded", 1)
            outputs.append((["profile folded (symbol names)"], folded))
            for command, run in outputs:
                check(run.returncode == 0, f"{command}: exit {run.returncode}: "
                                           f"{run.stderr.decode(errors='replace')}")
                no_raw_controls(run.stdout, f"{' '.join(command)} stdout")
                no_raw_controls(run.stderr, f"{' '.join(command)} stderr")
            # The hostile texts were there to be shown (escaped): the module path, the thread names
            # (the program's file name), the key map's names, the resource attribute, the symbol.
            shown = {" ".join(c): r.stdout + r.stderr for c, r in outputs}
            check(b"lib\\x1b]0;pwned" in shown["resolve"] and b"w\\x1b]0;" in shown["resolve"],
                  "resolve did not show the module path or the thread names")
            check(b"svc\\u001b]0;pwned" in shown["resolve --format json"],
                  "resolve --format json did not show the resource attribute")
            check(b"pwned" in shown[f"profile -d 1 --group-by {key}"], "no group by the hostile key")
            check(b"esc_]0:pwned" in shown["profile folded (symbol names)"],
                  "no sample in the escape-named function")
        finally:
            w.stop()
            spinner.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def vfork(args):
    target, pid = start([args.target, "vfork"], "target")
    try:
        run = run_limited([args.reader, "resolve", "--pid", str(pid)], LIMIT, timeout=30)
        out = run.stdout.decode()
        print(f"resolve: {run.describe()}\n{out}{run.stderr.decode()}")
        check(not run.timed_out and run.seconds < 15,
              f"resolve waited {run.seconds:.0f} s on a thread in vfork()")
        check(run.returncode == 0 and "did not stop in time" in out,
              f"the thread in vfork() is not listed unread (exit {run.returncode})")
    finally:
        target.proc.kill()


def svg(args):
    work = nobody_dir()
    try:
        names = give(shutil.copy(args.names_lib, os.path.join(work, "libnames.so")))
        placeholder = next(w for w in open(names, "rb").read().split(b"\0")
                           if w.startswith(b"hostile_name_long_cjk_placeholder"))
        cjk = ("計" * (len(placeholder) // 3)).encode()
        elf_strtab_patch(names, placeholder, cjk + b"_" * (len(placeholder) - len(cjk)))
        elf_strtab_patch(names, b"hostile_name_escapes_placeholder_0123456789",
                         b"esc\x1b[31m\xc2\x9b\x07\x01\xff".ljust(43, b"_"))
        target, pid = start([args.target, "spin", names, "hostile_spin_cjk",
                             "hostile_spin_escapes"], "target")
        try:
            run = profile(args, pid, "svg", 2)
            check(run.returncode == 0, f"exit {run.returncode}")
            try:
                ElementTree.fromstring(run.stdout)
            except ElementTree.ParseError as e:
                fail(f"the SVG is not well-formed XML: {e}")
            check("計計" in run.stdout.decode(), "no sample in the CJK-named function")
        finally:
            target.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def output_symlink(args):
    work = nobody_dir()
    secret_dir = tempfile.mkdtemp(prefix="vtctx-root-")
    try:
        secret = os.path.join(secret_dir, "secret")
        open(secret, "w").write("root's own\n")
        os.chmod(secret, 0o600)
        target, pid = start([args.target, "spin", args.names_lib, "hostile_spin_escapes"],
                            "target")
        try:
            for fmt, name in (("svg", "out.svg"), ("pprof", "out.pb.gz")):
                link = os.path.join(work, name)
                subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
                                "--clear-groups", "ln", "-s", secret, link], check=True)
                run = profile(args, pid, fmt, 1, "-o", link)
                err = run.stderr.decode(errors="replace")
                check(open(secret).read() == "root's own\n",
                      f"--format {fmt} wrote through {link} into a root-owned 0600 file")
                check(run.returncode != 0 and "symbolic link" in err,
                      f"--format {fmt}: exit {run.returncode} without saying why: {err[-500:]}")
        finally:
            target.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(secret_dir, ignore_errors=True)


CASES = {f.__name__: f for f in (symbol_names, cfi_mappings, perf_map_overlap, sigbus, elf_huge,
                                 exec_setuid, escapes, vfork, svg, output_symlink)}


def main():
    parser = required_args_parser("case", "reader", "target", "names-lib", "bomb-lib", "writer",
                                  "tlsdesc-lib", "java", "agent", "classes", "natives", "protoc",
                                  "proto")
    args = parser.parse_args()
    require_root()
    check(args.case in CASES, f"no case {args.case}")
    # Run as nobody: a world-readable copy of everything they execute or map.
    args.target = readable_by_all(args.target)
    args.names_lib = readable_by_all(args.names_lib)
    args.bomb_lib = readable_by_all(args.bomb_lib)
    args.writer = readable_by_all(args.writer)
    args.tlsdesc_lib = readable_by_all(args.tlsdesc_lib)
    global TARGET_ENV
    TARGET_ENV = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(args.tlsdesc_lib))
    args.classes = readable_by_all(args.classes)
    args.agent = readable_by_all(args.agent)
    print(f"--- {args.case}", flush=True)
    if args.case == "escapes":
        pb = compile_proto(args.protoc, args.proto, tempfile.mkdtemp(prefix="vtctx-pb-"))
        escapes(args, pb)
    else:
        CASES[args.case](args)
    print("PASS")


if __name__ == "__main__":
    main()
