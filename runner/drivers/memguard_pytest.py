"""memguard_pytest - memguard's pytest plugin: makes the pytest process a
memguard host (runner/host/PROTOCOL.md, version 4).

memguard's pytest driver (runner/drivers/pytest.c) loads it with
``-p memguard_pytest``. Started without MEMGUARD_HOST it does nothing. Under
memguard it replaces pytest's run loop: it answers ``list`` with pytest's own
collection (node ids, after -k, -m, deselection), runs each ``run NODEID``
through pytest's own ``pytest_runtest_protocol`` (every plugin's hooks, the
reports, fixtures of every scope set up and torn down as pytest would), and
at each boundary judges its memory with the host library's own verdict
(``mg_verdict_end`` from its shared build, through ctypes, with the limits
``mg_contract_read_limits`` reads) and before each test its admission
(``mg_verdict_admit``), writes ``dying`` at a fatal signal with the
library's own handler (``mg_host_dying``), parses the runner's lines with the
library's parser (``mg_proto_parse``), writes its own with its writer
(``mg_proto_put``) and its marks with ``mg_proto_put_mark`` (the run's secret
from ``mg_proto_mark_secret``): there is no second implementation of any of
them here, nor of the enum values (read back from the parser).

A fixture's teardown that fails (in a test's own teardown, at a recycle,
after this process's last test, or tearing down what the test pytest itself
runs next would have kept) is an entry of its own, as pytest counts it: an
``extra fail`` line (pytest exits 1 for it) named as pytest names it, the
node id of the test after which pytest tears that scope down (the last of
its tests in pytest's order), as pytest's ``--junitxml`` and short summary
do.

What it must never do: write anything but protocol lines on the reply
descriptor, or let pytest's terminal output land on a test (it writes each
test's captured output, then the test's mark, to the real stdout/stderr).
"""

import collections
import ctypes
import fcntl
import json
import os
import select
import signal
import sys
import time
import traceback

import pytest
from _pytest.outcomes import TEST_OUTCOME

_HOST = os.environ.get("MEMGUARD_HOST")
_MESSAGE_MAX = 16384  # a result's message, bytes (a line is at most 64 KiB)


def _cut(msg):
    """msg (bytes) in _MESSAGE_MAX bytes at most, a longer one cut with a
    note saying so (as a test's output cut says)."""
    if len(msg) <= _MESSAGE_MAX:
        return msg
    note = b"\n[memguard: message cut: %d of %d bytes shown]" % (_MESSAGE_MAX - 64, len(msg))
    return msg[: _MESSAGE_MAX - 64] + note
_VERDICT_WINDOW = 32  # mg_verdict.h MG_VERDICT_WINDOW
_MARK_MAX = 64  # mg_proto.h MG_MARK_MAX is 43
_SECRET_LEN = 16  # mg_proto.h MG_MARK_SECRET_LEN
_VERSION = 4  # the highest protocol version this plugin speaks


class _Verdict(ctypes.Structure):
    """mg_verdict.h's struct mg_verdict (the limits first, then its own)."""

    _fields_ = [
        ("recycle_va", ctypes.c_uint64),
        ("recycle_rss", ctypes.c_uint64),
        ("kill_va", ctypes.c_uint64),
        ("kill_rss", ctypes.c_uint64),
        ("gap_limit", ctypes.c_uint64),
        ("sites", ctypes.c_uint64),  # allocation sites (mg_sites.h): unused here
        ("sites_min", ctypes.c_uint64),
        ("growth", ctypes.c_int64 * _VERDICT_WINDOW),
        ("rgrowth", ctypes.c_int64 * _VERDICT_WINDOW),
        ("n", ctypes.c_size_t),
        ("va_start", ctypes.c_uint64),
        ("rss_start", ctypes.c_uint64),
        ("gap_ok_va", ctypes.c_uint64),
    ]


class _Msg(ctypes.Structure):
    """mg_proto.h's struct mg_msg."""

    _fields_ = [
        ("kind", ctypes.c_int),
        ("version", ctypes.c_uint),
        ("arch", ctypes.c_char * 8),
        ("pid", ctypes.c_long),
        ("usec", ctypes.c_uint64),
        ("va", ctypes.c_uint64),
        ("rss", ctypes.c_uint64),
        ("count", ctypes.c_uint64),
        ("why", ctypes.c_int),
        ("bytes", ctypes.c_uint64),
        ("sig", ctypes.c_int),
        ("state", ctypes.c_int),
        ("name_len", ctypes.c_size_t),
        ("text", ctypes.c_void_p),
        ("text_len", ctypes.c_size_t),
        ("build_id", ctypes.c_void_p),  # module, site: never sent by this plugin
        ("build_id_len", ctypes.c_size_t),
        ("site_kind", ctypes.c_int),
        ("frames", ctypes.c_void_p),
        ("nframes", ctypes.c_size_t),
    ]


# mg_msg_kind's values, read back from the library's parser (a sample line of
# each word): never a copy of the enum that could fall out of step with it
_SAMPLES = {
    "hello": b"hello 1 x64 1 0 0",
    "test": b"test x",
    "end": b"end 0",
    "start": b"start x",
    "pass": b"pass 0 0 0",
    "fail": b"fail 0 0 0",
    "skip": b"skip 0 0 0",
    "recycle": b"recycle 0 0",
    "bye": b"bye 0 0",
    "peak": b"peak 0",
    "list": b"list",
    "run": b"run x",
    "quit": b"quit",
    "expect": b"expect 0 0",
    "fed": b"fed",
    "extra": b"extra fail 1 x",
}


def _check_msg_size(lib):
    """_Msg is the library's mg_msg: its parser clears a whole mg_msg first,
    so bytes past a smaller _Msg would change (a field added on one side
    only), and an expect line's figures land in the fields named so."""
    size = ctypes.sizeof(_Msg)
    room = (ctypes.c_ubyte * (size + 64))(*([0xA5] * (size + 64)))
    line = ctypes.create_string_buffer(b"expect 7 9 known", 17)
    lib.mg_proto_parse(room, line, 16)
    m = _Msg.from_buffer(room)
    if any(room[i] != 0xA5 for i in range(size, size + 64)) or (m.va, m.bytes, m.count) != (
        7,
        9,
        1,
    ):
        raise RuntimeError("memguard_pytest: _Msg is not the host library's mg_msg")


def _kinds(lib):
    _check_msg_size(lib)
    kinds = {}
    for word, line in _SAMPLES.items():
        m = _Msg()
        buf = ctypes.create_string_buffer(line, len(line) + 1)
        if lib.mg_proto_parse(ctypes.byref(m), buf, len(line)) < 0:
            raise RuntimeError("memguard_pytest: the host library does not parse '%s'" % word)
        kinds[word] = m.kind
    return kinds


class _Host:
    """One pytest process serving the protocol: the runner's generation."""

    def __init__(self, session):
        self.session = session
        self.config = session.config
        lib = ctypes.CDLL(os.environ["MEMGUARD_PYTEST_LIB"])
        lib.mg_verdict_start.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64]
        lib.mg_verdict_end.argtypes = [
            ctypes.c_void_p,
            ctypes.c_uint64,
            ctypes.c_uint64,
            ctypes.POINTER(ctypes.c_uint64),
        ]
        lib.mg_verdict_end.restype = ctypes.c_int
        lib.mg_verdict_admit.argtypes = [
            ctypes.c_void_p,
            ctypes.c_uint64,
            ctypes.c_uint64,
            ctypes.c_uint64,
            ctypes.c_int,
            ctypes.c_uint64,
            ctypes.POINTER(ctypes.c_uint64),
        ]
        lib.mg_verdict_admit.restype = ctypes.c_int
        lib.mg_proto_parse.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.mg_proto_parse.restype = ctypes.c_int
        lib.mg_proto_put.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p]
        lib.mg_proto_put.restype = ctypes.c_size_t
        lib.mg_proto_mark_secret.argtypes = [ctypes.c_char_p, ctypes.c_uint]
        lib.mg_proto_mark_secret.restype = None
        lib.mg_proto_put_mark.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint64]
        lib.mg_proto_put_mark.restype = ctypes.c_size_t
        lib.mg_contract_read_limits.argtypes = [ctypes.c_void_p, ctypes.c_uint]
        lib.mg_contract_read_limits.restype = None
        lib.mg_contract_status.argtypes = [
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_uint64),
            ctypes.POINTER(ctypes.c_uint64),
        ]
        lib.mg_contract_status.restype = ctypes.c_int
        self.lib = lib
        self.kind = _kinds(lib)
        self.commands = {self.kind[w] for w in ("list", "run", "quit", "expect", "fed")}
        self.version = min(_VERSION, int(_HOST)) if _HOST.isdigit() else 1
        secret = ctypes.create_string_buffer(_SECRET_LEN + 1)
        lib.mg_proto_mark_secret(secret, self.version)
        self.secret = secret.value
        self.cmd_fd = int(os.environ.get("MEMGUARD_CMD_FD", "3"))
        self.reply_fd = int(os.environ.get("MEMGUARD_REPLY_FD", "4"))
        os.set_blocking(self.cmd_fd, False)
        self.inbuf = b""
        self.cmds = collections.deque()
        self.eof = False
        self.out = []
        self.statm = os.open("/proc/self/statm", os.O_RDONLY | os.O_CLOEXEC)
        self.status = os.open("/proc/self/status", os.O_RDONLY | os.O_CLOEXEC)
        self.page = os.sysconf("SC_PAGE_SIZE")
        self.verdict = _Verdict()
        lib.mg_contract_read_limits(ctypes.byref(self.verdict), self.version)
        self.expect = (0, 0, 0)
        self.ordinal = 0
        self.peak_seen = 0
        self.max_rise = 0  # the largest rise above its start a test here made (VmPeak)
        self.items = {}  # listed name -> item
        self.names = {}  # item -> listed name (_listed_names)
        self.after = {}  # item -> the item pytest itself runs after it (None: last)
        self.pending = None  # the item whose scopes above its own await the next
        self.stdout = _SAVED_FDS[0]
        self.stderr = _SAVED_FDS[1]
        self.shared = _Shared(self.config)

    # ---- memory ----
    def mem(self):
        f = os.pread(self.statm, 128, 0).split()
        return int(f[0]) * self.page, int(f[1]) * self.page

    def peaks(self):
        """VmPeak and VmHWM in bytes, from the kept-open /proc/self/status
        (one pread, by mg_contract_status)."""
        va, rss = ctypes.c_uint64(0), ctypes.c_uint64(0)
        self.lib.mg_contract_status(self.status, ctypes.byref(va), ctypes.byref(rss))
        return va.value, rss.value

    # ---- the reply descriptor ----
    def put(self, line):
        self.out.append(line)

    def send(self, word, text=b"", **fields):
        """The line of word (a host line: "pass", "recycle", ...) with fields
        (mg_msg's: usec, va, rss, why, bytes, count, version, pid, arch) and
        text, written by the library's mg_proto_put."""
        m = _Msg()
        m.kind = self.kind[word]
        for k, v in fields.items():
            setattr(m, k, v)
        # the protocol carries any byte but NUL (a message's NUL is '?', as
        # the shims make a program's)
        text = text.replace(b"\0", b"?")
        keep = ctypes.create_string_buffer(text, len(text) + 1)
        m.text = ctypes.cast(keep, ctypes.c_void_p)
        m.text_len = len(text)
        cap = len(text) * 2 + 256
        buf = ctypes.create_string_buffer(cap)
        n = self.lib.mg_proto_put(buf, cap, ctypes.byref(m))
        self.put(buf.raw[:n])

    def flush(self):
        data = b"".join(self.out)
        self.out = []
        while data:
            data = data[os.write(self.reply_fd, data) :]

    # ---- the command descriptor ----
    def fill(self, block):
        """One read of the command pipe (waiting for it when block); each
        complete line is parsed once, into self.cmds."""
        if self.eof:
            return
        if block:
            select.select([self.cmd_fd], [], [])
        try:
            data = os.read(self.cmd_fd, 65536)
        except BlockingIOError:
            return
        if not data:
            self.eof = True
            return
        lines = (self.inbuf + data).split(b"\n")
        self.inbuf = lines.pop()
        if len(self.inbuf) >= 65536:
            self.bad_command(self.inbuf)
        self.cmds.extend(self.parse(line) for line in lines)

    def take(self):
        """The next command, taken (waiting for it); None at end of file."""
        while not self.cmds:
            if self.eof:
                return None
            self.fill(True)
        cmd = self.cmds.popleft()
        if cmd[0] is None:
            self.bad_command(cmd[3])
        return cmd

    def parse(self, line):
        """(kind, name, (va, bytes, count), line); kind None for a line outside
        the grammar or not a command (refused when it is taken)."""
        buf = ctypes.create_string_buffer(line, len(line) + 1)
        m = _Msg()
        if self.lib.mg_proto_parse(ctypes.byref(m), buf, len(line)) < 0 or m.kind not in (
            self.commands
        ):
            return None, b"", (0, 0, 0), line
        name = ctypes.string_at(m.text, m.text_len) if m.text else b""
        return m.kind, name, (m.va, m.bytes, m.count), line

    def bad_command(self, line):
        self.flush()
        os.write(self.stderr, b"memguard host: bad command '%s'\n" % line[:200])
        os._exit(3)

    # ---- serving ----
    def serve(self):
        va, rss = self.mem()
        arch = b"x86" if ctypes.sizeof(ctypes.c_void_p) == 4 else b"x64"
        self.lib.mg_verdict_start(ctypes.byref(self.verdict), va, rss)
        self.send("hello", version=self.version, arch=arch, pid=os.getpid(), va=va, rss=rss)
        self.flush()
        items = self.session.items
        for i, (item, name) in enumerate(zip(items, _listed_names(items))):
            self.items[name] = item
            self.names[item] = name
            self.after[item] = items[i + 1] if i + 1 < len(items) else None
        while True:
            if not self.cmds:
                self.flush()
            cmd = self.take()
            if cmd is None:  # the runner has gone
                os._exit(0)
            kind, name, nums, line = cmd
            if kind == self.kind["list"]:
                self.settle(None)
                for raw in _listed_names(self.session.items):
                    self.send("test", raw)
                self.collect_errors()
                self.send("end", count=len(self.session.items))
            elif kind == self.kind["expect"]:
                self.expect = nums
            elif kind == self.kind["run"]:
                if not self.run(name):
                    return self.await_quit()
            elif kind == self.kind["quit"]:
                return self.bye()
            elif kind != self.kind["fed"]:
                self.bad_command(line)

    def await_quit(self):
        self.flush()
        while True:
            cmd = self.take()
            if cmd is None:
                os._exit(0)
            if cmd[0] == self.kind["quit"]:
                return self.bye()

    def bye(self):
        self.settle(None)
        peak_va, peak_rss = self.peaks()
        self.shared.close()
        self.send("bye", va=peak_va, rss=peak_rss)
        self.flush()

    def settle(self, nextitem):
        """Tears down what the last item kept for the item pytest runs after
        it, as far as nextitem (the one that does come next here; None: no
        more) does not need it, as pytest's SetupState.teardown_exact would,
        a node at a time: a finalizer's error is an entry of its own
        (extra_error), named after the test pytest tears that node down
        after."""
        __tracebackhide__ = True  # pytest's report of an error shows no frame of this
        if self.pending is None:
            return
        self.pending = None
        state = self.session._setupstate
        needed = nextitem.listchain() if nextitem is not None else []
        errors = collections.OrderedDict()  # name -> texts
        while state.stack:
            nodes = list(state.stack)
            if nodes == needed[: len(nodes)]:
                break
            try:
                # the stack but its innermost node is what the "next" needs:
                # teardown_exact pops exactly that node
                state.teardown_exact(_Chain(nodes[:-1]))
            except TEST_OUTCOME as e:
                last = self.last_of(nodes[-1])
                errors.setdefault(last, []).append(_teardown_text(last, e))
        for last, texts in errors.items():
            name = self.names.get(last) or last.nodeid.encode("utf-8", "surrogateescape")
            self.extra_error(name, "\n".join(texts))

    def last_of(self, node):
        """The test after which pytest itself tears node down: the last of
        node's tests in pytest's order."""
        for item in reversed(self.session.items):
            if node in item.listchain():
                return item
        return self.session.items[-1]

    def collect_errors(self):
        """The collection errors, as the listing's extra lines (PROTOCOL.md
        6c): each an entry of its own, state fail, as pytest counts it ("1
        passed, 1 error", exit 1, with --continue-on-collection-errors;
        without it pytest runs no test, exit 2, and the listing lists none:
        pytest_runtestloop), named by the collector's node id as pytest's
        short summary names it ("ERROR test_x.py"). Only the listing host
        sends them: every lane's pytest collects the same."""
        for rep in _HOST_STATE.get("collect_errors", []):
            # a conftest.py's error is the root's, whose node id is empty
            name = (rep.nodeid or "<collection>").encode("utf-8", "surrogateescape")
            msg = ("error collecting: " + rep.longreprtext).encode("utf-8", "replace")
            self.send("extra", name + _cut(msg), state=self.kind["fail"],
                      name_len=len(name))
        # a module skipped at collection (importorskip, a module-level
        # skip): pytest counts it among its skipped ("9 skipped"), and its
        # JUnit has an entry for it
        for rep in _HOST_STATE.get("collect_skips", []):
            name = (rep.nodeid or "<collection>").encode("utf-8", "surrogateescape")
            msg = ("skipped: " + _skip_reason(rep)).encode("utf-8", "replace")
            self.send("extra", name + _cut(msg), state=self.kind["skip"],
                      name_len=len(name))

    def extra_error(self, name, text, counted=False):
        """An entry outside the listed tests (PROTOCOL.md 6c): a failing
        teardown, pytest's "ERROR at teardown of NAME". State fail, with the
        message's "error at teardown" as for a teardown error inside a
        test's protocol: pytest exits 1 for it (memguard's error state is
        its own infrastructure, exit 3)."""
        msg = _cut(("error at teardown: " + text).encode("utf-8", "replace"))
        self.send("extra", name + msg, state=self.kind["fail"], name_len=len(name))
        if not counted:  # for -x/--maxfail, as pytest counts it
            self.shared.count_failure_if_counting()

    def admits(self):
        """The admission before a test (PROTOCOL.md 6a), the host library's
        mg_verdict_admit: False when history's expected rise, or (unless
        history knows the test's own rise: v4's "known") the largest a test
        here made, from the boundary's VA would reach the kill limit (a
        recycle, and a fresh host runs it)."""
        rise, growth, known = self.expect
        known = 1 if known and self.version >= 4 else 0
        self.expect = (0, 0, 0)
        if not (rise or growth or (self.max_rise and not known)) or not self.verdict.kill_va:
            return True  # nothing to judge: no ctypes call
        nbytes = ctypes.c_uint64(0)
        va = self.verdict.va_start  # the boundary's reading: nothing ran since
        why = self.lib.mg_verdict_admit(
            ctypes.byref(self.verdict), va, rise, growth, known, self.max_rise, ctypes.byref(nbytes)
        )
        if not why:
            return True
        self.settle(None)
        self.send("recycle", va=va, rss=self.verdict.rss_start, why=why, bytes=nbytes.value)
        return False

    def run(self, name):
        """Runs one test; False when this host takes no more (a recycle)."""
        item = self.items.get(name)
        if not self.admits():
            return False
        self.settle(item)
        self.send("start", name)
        self.flush()
        t0 = time.monotonic()
        teardown = ""
        if item is None:
            word, msg = b"fail", b"unknown test '%s'" % name[:200]
        elif self.shared.stopped(self.session):
            word, msg = b"skip", ("not run: %s (-x/--maxfail)" % self.shared.why).encode()
        else:
            word, msg, teardown = self.run_item(item)
        usec = int((time.monotonic() - t0) * 1e6)
        if self.version >= 2:
            self.mark()
            if usec >= 1000:
                peak = self.peaks()[0]
                if peak > self.peak_seen:
                    self.peak_seen = peak
                    self.max_rise = max(self.max_rise, peak - self.verdict.va_start)
                    self.send("peak", va=peak)
        va, rss = self.mem()
        nbytes = ctypes.c_uint64(0)
        why = self.lib.mg_verdict_end(ctypes.byref(self.verdict), va, rss, ctypes.byref(nbytes))
        self.send(word.decode(), _cut(msg), usec=usec, va=va, rss=rss)
        if teardown:  # pytest's "ERROR at teardown of" this test: counted already
            self.extra_error(name, teardown, counted=True)
        if not why:
            return True
        # the session ends here: what fails tearing it down is named after
        # the tests pytest would tear it down after
        self.settle(None)
        # a v1 runner knows no why word (MG_WHY_NONE writes none)
        why = why if self.version >= 2 else 0
        self.send("recycle", va=va, rss=rss, why=why, bytes=nbytes.value)
        return False

    def run_item(self, item):
        """pytest's own protocol for item: (result word, message, the text
        of its teardown's error or ""). Its
        nextitem is always the test pytest itself runs after it, whatever
        comes next here: pytest's teardowns then happen after the tests
        pytest has them after, their errors on those tests; what the test
        that does come next here (or the end of this process) does not
        need goes at its start (settle)."""
        nextitem = self.after[item]
        self.reports = []
        self.shared.started(item.nodeid)
        if nextitem is not None:
            self.pending = item
        asked = None
        try:
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        except (pytest.exit.Exception, KeyboardInterrupt) as e:
            # pytest.exit() in the test, or a KeyboardInterrupt it raised
            # (a real SIGINT ends the process as before: _sigint)
            if isinstance(e, KeyboardInterrupt) and _HOST_STATE.get("sigint"):
                raise
            asked = e
            # the phase's teardown did not run: what it keeps is torn down
            # before the next test here, or at the process's end
            self.pending = item
        word, msg, teardown = _outcome(self.reports)
        self.shared.finished(self.session)
        self.write_output(self.reports)
        if asked is not None:
            self.write_captured(item)
            word, msg = self.exit_asked(asked, word, msg)
        return word, msg.encode("utf-8", "replace"), teardown

    def exit_asked(self, e, word, msg):
        """pytest.exit(MSG, returncode=N) in a test ends pytest's run there,
        exiting N, with no report of the test's call: with N 0 (the run
        passes directly) the test is a pass, as GoogleTest's exit(0)
        mid-test is, said in its output; else a fail naming the exit (the
        run fails directly too). The tests after it run here all the same,
        as pytest does not (those that fail make memguard's exit 1 where
        pytest's is N). Before, the process ended, the test a crash, and
        the run exited 1 for a pytest.exit(returncode=0)."""
        if isinstance(e, KeyboardInterrupt):
            # pytest stops its run there too ("Interrupted", exit 2): a fail
            # (before: "host exited with status 0 during the test", a crash)
            said = ("KeyboardInterrupt in this test: pytest ends its run there (exit 2), "
                    "memguard runs the tests after it")
            return b"fail", (msg + "\n" if msg else "") + said
        code = e.returncode if e.returncode is not None else 2
        said = "pytest.exit() in this test (returncode %d): %s" % (code, e.msg)
        if code == 0:
            _write_all(self.stdout, ("memguard: %s; pytest ends its run there, memguard "
                                     "runs the tests after it\n" % said).encode("utf-8", "replace"))
            return word, msg
        return b"fail", (msg + "\n" if msg else "") + said

    def write_captured(self, item):
        """What the phase that exited printed: pytest's capture put it in
        the item's report sections, but no report of the phase was made,
        so write_output did not write it. It is this test's output."""
        sections = getattr(item, "_report_sections", [])
        made = len(self.reports[-1].sections) if self.reports else 0
        for when, key, text in sections[made:]:
            if text:
                fd = self.stdout if key == "stdout" else self.stderr
                _write_all(fd, text.encode("utf-8", "replace"))

    def write_output(self, reports):
        # a report holds the sections of its phase and those before it
        for rep in reports[-1:]:
            for title, text in rep.sections:
                if not text:
                    continue
                fd = self.stdout if "stdout" in title else self.stderr
                _write_all(fd, text.encode("utf-8", "replace"))

    def mark(self):
        """The test's mark after its output on both streams (PROTOCOL.md)."""
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except Exception:
                pass
        buf = ctypes.create_string_buffer(_MARK_MAX)
        n = self.lib.mg_proto_put_mark(buf, self.secret, self.ordinal)
        mark = buf.raw[:n]
        self.ordinal += 1
        for fd in (self.stdout, self.stderr):
            try:
                _write_all(fd, mark)
            except OSError:
                pass


class _Chain:
    """A stand-in for the next item whose collectors (listchain) are given:
    SetupState.teardown_exact tears down what they do not hold."""

    def __init__(self, chain):
        self.chain = chain

    def listchain(self):
        return self.chain


def _write_all(fd, data):
    while data:
        data = data[os.write(fd, data) :]


def _teardown_text(item, e):
    """A teardown's error as pytest reports it after item (its
    TestReport's longrepr for a teardown: _repr_failure_py in the
    configured --tb style)."""
    try:
        excinfo = pytest.ExceptionInfo.from_exc_info((type(e), e, e.__traceback__))
        style = item.config.getoption("tbstyle", "auto")
        return str(item._repr_failure_py(excinfo, style=style))
    except Exception:  # pytest's internals moved: Python's own words
        return "".join(traceback.format_exception(type(e), e, e.__traceback__))


def _outcome(reports):
    """One protocol result for pytest's reports of one test, in pytest's
    words: failed, error at setup, skipped, xfailed (skip), xpassed (pass; a
    strict xpass is pytest's failure); and the text of a failed teardown
    ("" when none), which pytest counts as an entry of its own ("1 passed,
    1 error")."""
    fails, skip, teardown = [], None, []
    for rep in reports:
        if rep.failed and rep.when == "teardown":
            teardown.append(rep.longreprtext)
        elif rep.failed:
            what = "failed" if rep.when == "call" else "error at %s" % rep.when
            if rep.when == "call" and hasattr(rep, "wasxfail"):
                what = "failed: [XPASS(strict)]"
            fails.append("%s: %s" % (what, rep.longreprtext))
        elif rep.skipped and skip is None:
            if hasattr(rep, "wasxfail"):
                skip = "xfailed: %s" % rep.wasxfail
            else:
                skip = "skipped: %s" % _skip_reason(rep)
    teardown = "\n".join(teardown)
    if fails:
        return b"fail", "\n".join(fails), teardown
    if skip is not None:
        return b"skip", skip, teardown
    return b"pass", "", teardown


def _skip_reason(rep):
    """The reason as pytest's short summary says it ("SKIPPED [1] f.py:4:
    REASON"): without the exception's "Skipped: " in front."""
    lr = rep.longrepr
    reason = str(lr[2]) if isinstance(lr, tuple) and len(lr) == 3 else rep.longreprtext
    return reason[9:] if reason.startswith("Skipped: ") else reason


class _Shared:
    """-x / --maxfail across the run's pytest processes (every lane, every
    generation): failures counted in one file, a test that killed its
    process (its name left in this process's file) counted by the next.
    Nothing is written without a maxfail."""

    def __init__(self, config):
        self.maxfail = config.getoption("maxfail") or 0
        self.base = os.environ.get("MEMGUARD_PYTEST_RUN", "")
        self.why = ""
        self.fd = -1
        if not self.maxfail or not self.base:
            self.maxfail = 0
            return
        self.fd = os.open("%s.%d" % (self.base, os.getpid()), os.O_RDWR | os.O_CREAT, 0o600)
        # a process of this run that died inside a test: its test failed
        d, prefix = os.path.split(self.base)
        for f in os.listdir(d or "."):
            if not f.startswith(prefix + ".") or not f[len(prefix) + 1 :].isdigit():
                continue
            pid = int(f[len(prefix) + 1 :])
            if pid == os.getpid() or os.path.exists("/proc/%d" % pid):
                continue
            path = os.path.join(d, f)
            with open(path, "rb") as fp:
                died_in = fp.read()
            if died_in:
                self.count_failure()
            os.unlink(path)

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            os.unlink("%s.%d" % (self.base, os.getpid()))
            self.fd = -1

    def count_failure_if_counting(self):
        """A failure outside the tests (a teardown's error), for -x/--maxfail:
        pytest counts it as it counts a failed test."""
        if self.maxfail:
            self.count_failure()

    def count_failure(self):
        fd = os.open(self.base + ".failed", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.write(fd, b"x")
        os.close(fd)

    def stopped(self, session):
        why = session.shouldfail or session.shouldstop
        if why:
            self.why = str(why)
            return True
        if not self.maxfail:
            return False
        try:
            n = os.stat(self.base + ".failed").st_size
        except FileNotFoundError:
            return False
        if n >= self.maxfail:
            self.why = "stopping after %d failures" % n
            return True
        return False

    def started(self, nodeid):
        if self.fd >= 0:
            os.pwrite(self.fd, nodeid.encode("utf-8", "replace") + b"\n", 0)

    def finished(self, session):
        if self.fd < 0:
            return
        os.ftruncate(self.fd, 0)
        for _ in range(session.testsfailed - getattr(self, "seen", 0)):
            self.count_failure()
        self.seen = session.testsfailed


class _CacheMerge:
    """pytest's cache (``lastfailed``) as one pytest's run leaves it, and
    what ``--lf``/``--ff`` select the same in every process of the run.

    Each of the run's pytest processes (every lane, every generation a
    recycle starts) read the cache as it started and wrote it whole at its
    end (cacheprovider's LFPlugin), the last over the others: after a run
    of two lanes a later ``pytest --lf`` missed the failures of the lanes
    that ended first; and a process started after another had written
    collected, under ``--lf``, other tests than the listing had (each
    then "unknown test"). Here the run's first process (the listing's)
    keeps what it read in the run's directory, and every later one starts
    from that; each puts what it changed (failures added, tests that passed
    taken out) onto what the file holds now, under a lock on the rootdir
    (the same directory for every process of the run, there before the
    cache is): as a test's report changes it (a failure, a fix: seldom a
    test), so a process memguard kills later loses none of it, and as the
    session ends, before the other plugins' ends (the lock is not held
    through them). LFPlugin's own write is taken out."""

    def __init__(self, config, lf):
        self.lf = lf
        base = _run_base()
        begun = _run_start_lastfailed(base + ".lastfailed", lf.lastfailed) if base else None
        if begun is not None and begun != lf.lastfailed:
            lf.lastfailed = begun
            if config.getoption("lf", False):
                lf._last_failed_paths = lf.get_last_failed_paths()
        self.synced = dict(lf.lastfailed)
        # LFPlugin writes at its end what it has, over what the others
        # wrote meanwhile: this class writes it instead (registered again,
        # its hooks are read afresh)
        config.pluginmanager.unregister(lf)
        lf.pytest_sessionfinish = lambda session: None
        config.pluginmanager.register(lf, "lfplugin")

    def _locked(self, config):
        """The rootdir's descriptor, locked; -1 when it cannot be."""
        if config.getoption("cacheshow", False):
            return -1
        fd = -1
        try:
            fd = os.open(str(config.rootpath), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            fcntl.flock(fd, fcntl.LOCK_EX)
            return fd
        except OSError:
            if fd >= 0:
                os.close(fd)
            return -1

    def _put(self, config):
        """This process's changes since it last put them, onto the file's
        lastfailed, under the lock."""
        fd = self._locked(config)
        if fd < 0:
            return
        try:
            now, mine, was = (config.cache.get("cache/lastfailed", {}), self.lf.lastfailed,
                              self.synced)
            merged = {k: v for k, v in now.items() if k in mine or k not in was}
            merged.update((k, v) for k, v in mine.items() if k not in was)
            if merged != now:
                config.cache.set("cache/lastfailed", merged)
            self.synced = dict(mine)
        finally:
            os.close(fd)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_logreport(self, report):
        yield
        nodeid = report.nodeid
        if (nodeid in self.lf.lastfailed) != (nodeid in self.synced):
            self._put(self.lf.config)

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session):
        self._put(session.config)
        yield


def _run_start_lastfailed(path, mine):
    """The lastfailed the run's first process read as it started: kept at
    path by that process (a file made whole, then linked to its name);
    read back by every later one. None when it cannot be had."""
    tmp = "%s.%d" % (path, os.getpid())
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(mine, f)
        try:
            os.link(tmp, path)
            return dict(mine)  # the first: what it read is the run's
        except FileExistsError:
            with open(path, encoding="utf-8") as f:
                got = json.load(f)
            return got if isinstance(got, dict) else None
        finally:
            os.unlink(tmp)
    except (OSError, ValueError):
        return None


def _run_base():
    """MEMGUARD_PYTEST_RUN when it is in a directory of the run's own (which
    the runner removes at its end), else "": a mark there is left behind."""
    base = os.environ.get("MEMGUARD_PYTEST_RUN", "")
    return base if os.path.basename(os.path.dirname(base)).startswith("memguard-pytest-") else ""


def _cache_clear_once(config):
    """--cache-clear empties the cache as pytest starts: in every process
    of the run, each a later lane's or generation's, it emptied what the
    others had written. The run's first process (the listing's) clears it;
    the others, finding the run's mark, do not."""
    base = _run_base()
    if not config.getoption("cacheclear", False) or not base:
        return
    try:
        os.close(os.open(base + ".cache-cleared", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        config.option.cacheclear = False


def _listed_names(items):
    """Each item's name in the listing: its node id; the k-th item of a node
    id given twice on the command line (pytest runs it again) is
    "NODEID#k", as memguard names a GoogleTest or CTest test listed again."""
    seen = {}
    out = []
    for item in items:
        raw = item.nodeid.encode("utf-8", "surrogateescape")
        k = seen[raw] = seen.get(raw, 0) + 1
        out.append(raw if k == 1 else raw + b"#%d" % k)
    return out


_SAVED_FDS = (1, 2)
_HOST_STATE = {}


if _HOST:

    @pytest.hookimpl(tryfirst=True)
    def pytest_cmdline_main(config):
        if config.pluginmanager.hasplugin("xdist") and config.getoption("numprocesses", None):
            raise pytest.UsageError(
                "memguard: pytest-xdist's -n (here from the configuration: addopts or "
                "PYTEST_ADDOPTS) asks for worker processes; under memguard the lanes are "
                "the workers: add -n 0 (or -p no:xdist) to the command and give memguard -j N"
            )
        # what the command line is refused for (pytest.c), from the
        # configuration: each process would write its own --junitxml over
        # the others'; --collect-only and the setup plans run no test
        if getattr(config.option, "xmlpath", None):
            raise pytest.UsageError(
                "memguard: pytest's --junitxml (here from the configuration: addopts or "
                "PYTEST_ADDOPTS): under memguard each pytest process would write its own "
                "file over the others; give memguard --adapter junit=PATH instead"
            )
        for opt, flag in (("collectonly", "--collect-only"), ("setuponly", "--setup-only"),
                          ("setupplan", "--setup-plan"), ("showfixtures", "--fixtures"),
                          ("show_fixtures_per_test", "--fixtures-per-test"),
                          ("markers", "--markers"), ("version", "--version"),
                          ("help", "--help")):
            if getattr(config.option, opt, False):
                raise pytest.UsageError(
                    "memguard: pytest's %s (here from the configuration: addopts or "
                    "PYTEST_ADDOPTS) runs no test: run pytest itself for it" % flag
                )
        _cache_clear_once(config)

    @pytest.hookimpl(trylast=True)
    def pytest_configure(config):
        # pytest's terminal report goes nowhere: memguard reports the tests
        tr = config.pluginmanager.get_plugin("terminalreporter")
        if tr is not None:
            tr._tw._file = open(os.devnull, "w")
        lf = config.pluginmanager.get_plugin("lfplugin")
        if lf is not None and getattr(config, "cache", None) is not None:
            config.pluginmanager.register(_CacheMerge(config, lf), "memguard_cache_merge")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(session):
        if session.testsfailed and not session.config.option.continue_on_collection_errors:
            # pytest ends its session here ("Interrupted: 1 error during
            # collection", exit 2) and runs no test: the listing lists none,
            # and its collection errors (collect_errors) are the run's
            # entries, with pytest's text (before: the run exited 3, the
            # errors on stderr only)
            _write_all(_SAVED_FDS[1], b"memguard: %d error%s during collection: pytest runs no "
                       b"test then (--continue-on-collection-errors runs the others)\n"
                       % (session.testsfailed, b"s" if session.testsfailed != 1 else b""))
            session.items = []
        host = _Host(session)
        _HOST_STATE["host"] = host
        host.serve()
        return True

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_logreport(report):
        host = _HOST_STATE.get("host")
        if host is not None and report.when in ("setup", "call", "teardown"):
            host.reports.append(report)
        yield

    def pytest_collectreport(report):
        if report.failed:
            _HOST_STATE.setdefault("collect_errors", []).append(report)
        elif report.skipped:
            _HOST_STATE.setdefault("collect_skips", []).append(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(session, exitstatus):
        if "host" in _HOST_STATE:
            # the runner has every verdict (a teardown's error too: an extra
            # line); a host exits 0 after bye
            session.exitstatus = 0

    # the real stdout and stderr, before pytest's capture takes fds 1 and 2
    _SAVED_FDS = (os.dup(1), os.dup(2))

    def _dying_install():
        """The host library's own handler of fatal signals (mg_host_dying,
        PROTOCOL.md 7a: "dying SIG VA RSS PEAKVA", then the same death),
        installed at import: before pytest's faulthandler (its
        pytest_configure), which prints the traceback, then restores and
        calls the handler it found. Version 2 and up."""
        if not _HOST.isdigit() or int(_HOST) < 2:
            return
        lib = ctypes.CDLL(os.environ["MEMGUARD_PYTEST_LIB"])
        lib.mg_host_dying.argtypes = [ctypes.c_int, ctypes.c_int]
        lib.mg_host_dying.restype = None
        # kept open for the process's life: the handler preads it
        statm = os.open("/proc/self/statm", os.O_RDONLY | os.O_CLOEXEC)
        lib.mg_host_dying(int(os.environ.get("MEMGUARD_REPLY_FD", "4")), statm)

    _dying_install()

    def _sigint(signum, frame):
        """A real SIGINT (the runner's, a user's Ctrl-C) ends the host as
        before; only a KeyboardInterrupt a test raises itself is that
        test's outcome (run_item)."""
        _HOST_STATE["sigint"] = True
        raise KeyboardInterrupt

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _sigint)
