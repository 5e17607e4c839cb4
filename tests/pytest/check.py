"""check.py - the pytest driver's cases (CTest pytest__CASE): real pytest
processes under the real memguard binary, each outcome compared with what
pytest itself says of the same tests (its own --junitxml).

usage: check.py MEMGUARD PYTHON CASE   (exit 0 pass, 1 fail, 77 skip)
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SUITES = os.path.join(HERE, "suites")
PYFLAKES_TESTS = "/usr/lib/python3/dist-packages/pyflakes/test"

MEMGUARD, PYTHON, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
WORK = tempfile.mkdtemp(prefix="mg-pytest-")
ENV = dict(os.environ, TMPDIR=WORK, PYTHONDONTWRITEBYTECODE="1")
ENV.pop("CI", None)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED: " + what)


def pytest_cmd(*args):
    # the suite's own folder as pytest's rootdir, so node ids do not depend
    # on where the checkout and the temporary folder are (both under /tmp:
    # their common ancestor would be the rootdir)
    roots = [a for a in args if os.path.isdir(a)]
    rootdir = ["--rootdir", roots[0]] if roots else []
    return [PYTHON, "-m", "pytest", "-p", "no:cacheprovider", *rootdir, *args]


def memguard(args, cmd, env=None, cgroup=None, hang=None):
    """memguard run ARGS -- CMD: (returncode, report or None, stdout, stderr).
    With hang (seconds), a memguard still running then is killed (SIGKILL)
    and the case fails: a deadlock detector, not a timing."""
    report = os.path.join(WORK, "report.json")
    if os.path.exists(report):
        os.unlink(report)
    try:
        p = subprocess.run(
            [MEMGUARD, "run", "--report", report, *args, "--", *cmd],
            cwd=WORK,
            env=env or ENV,
            capture_output=True,
            text=True,
            timeout=hang,
            preexec_fn=(lambda: _enter(cgroup)) if cgroup else None,
        )
    except subprocess.TimeoutExpired:
        check(False, "memguard still running after %d s: hung" % hang)
        return -1, None, "", ""
    rep = json.load(open(report)) if os.path.exists(report) else None
    return p.returncode, rep, p.stdout, p.stderr


def _enter(cgroup):
    with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
        f.write("%d\n" % os.getpid())


def entries(rep):
    """[(node id, state, message, output)] of a memguard report (v1 or v2),
    every entry: a test, and a teardown's error named after its test."""
    out = []
    for s in rep["shards"]:
        for t in s["tests"]:
            out.append((
                t.get("name", t.get("n")),
                t.get("state", t.get("s", "pass")),
                t.get("message", t.get("m", "")),
                t.get("output", t.get("o", "")),
            ))
    return out


def is_teardown_error(message):
    return message.startswith("error at teardown: ")


def tests_of(rep):
    """{node id: (state, message, output)} of a memguard report: a test and
    the teardown error pytest reports after it (an entry of its own, as
    pytest counts it) as one, as pytest's --junitxml writes them: the
    test's state unless it passed or was skipped, then the error's; the
    messages joined, the test's first."""
    out = {}
    for name, state, msg, output in sorted(entries(rep), key=lambda e: is_teardown_error(e[2])):
        if name not in out:
            out[name] = (state, msg, output)
            continue
        s0, m0, o0 = out[name]
        if s0 in ("pass", "skip"):
            s0 = state
        out[name] = (s0, "\n".join(m for m in (m0, msg) if m), o0 + output)
    return out


def memguard_outcome(state, message):
    """A memguard state and message in pytest's outcome words."""
    if state == "pass":
        return "passed"
    if state == "skip":
        return "xfailed" if message.startswith("xfailed:") else "skipped"
    if state == "fail":
        if message.startswith("failed:"):
            return "failed"
        if message.startswith(("error at", "xfailed:", "skipped:")):
            return "error"  # a teardown's error after a skip: pytest's <error>
    return state + ": " + message[:60]


def junit_id(nodeid):
    """pytest's own --junitxml (classname, name) for a node id
    (_pytest/junitxml.py mangle_test_address)."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    return ".".join(names[:-1]), names[-1]


def pytest_outcomes(args):
    """pytest's own verdicts: {(classname, name): outcome} from --junitxml."""
    xml = os.path.join(WORK, "pytest.xml")
    subprocess.run(pytest_cmd("-q", "--junitxml", xml, *args), cwd=WORK, env=ENV,
                   capture_output=True)
    out = {}
    for tc in ET.parse(xml).getroot().iter("testcase"):
        key = (tc.get("classname"), tc.get("name"))
        kinds = [c.tag for c in tc]
        if "failure" in kinds:
            o = "failed"
        elif "error" in kinds:
            o = "error"
        elif "skipped" in kinds:
            sk = tc.find("skipped")
            o = "xfailed" if sk.get("type") == "pytest.xfail" else "skipped"
        else:
            o = "passed"
        # a failed call and a teardown error are two entries: the first word stays
        out.setdefault(key, o)
    return out


def same_as_pytest(args, jobs, extra=()):
    """Every node id's outcome under memguard -j JOBS equals pytest's own."""
    want = pytest_outcomes(args)
    rc, rep, _, err = memguard(["-j", str(jobs), *extra], pytest_cmd(*args))
    check(rep is not None, "a report was written (stderr: %s)" % err[-2000:])
    if rep is None:
        return None
    got = {junit_id(n): memguard_outcome(s, m) for n, (s, m, _) in tests_of(rep).items()}
    check(len(got) == len(tests_of(rep)), "node ids map to distinct JUnit ids")
    check(set(got) == set(want), "the same tests as pytest: only memguard %s, only pytest %s"
          % (sorted(set(got) - set(want))[:5], sorted(set(want) - set(got))[:5]))
    for k in sorted(set(got) & set(want)):
        check(got[k] == want[k], "%s::%s: memguard %s, pytest %s" % (k[0], k[1], got[k], want[k]))
    failed = any(o in ("failed", "error") for o in want.values())
    check(rc == (1 if failed else 0), "exit %d, pytest's verdict %s" % (rc, failed))
    return rep


def case_states(jobs, extra=()):
    suite = os.path.join(SUITES, "states")
    rep = same_as_pytest([suite], jobs, extra)
    if rep is None:
        return
    t = tests_of(rep)
    state, _, out = t["test_states.py::test_pass"]
    check("out of test_pass" in out and "err of test_pass" in out, "test_pass's output: %r" % out)
    check(all("test_pass" not in o for n, (_, _, o) in t.items() if n != "test_states.py::test_pass"),
          "no other test holds test_pass's output")
    check(t["test_states.py::test_xpass_strict"][1].startswith("failed: [XPASS(strict)]"),
          "a strict xpass is pytest's failure, named so")
    check("teardown broke" in t["test_states.py::test_teardown_error"][1],
          "the teardown error's message")
    check(len(t) == 17, "16 tests listed and a module skipped, got %d" % len(t))
    state, msg, _ = t.get("test_module_skip.py", ("", "", ""))
    check(state == "skip" and "memguard_no_such_module" in msg,
          "the module pytest skipped at collection: %s %s" % (state, msg[:100]))
    check("module teardown broke" in t["test_module_teardown.py::test_last"][1],
          "the module fixture's teardown error is on its last test")


def pytest_counts(args):
    """pytest's own totals of --junitxml: (tests, errors, failures)."""
    xml = os.path.join(WORK, "pytest.xml")
    subprocess.run(pytest_cmd("-q", "--junitxml", xml, *args), cwd=WORK, env=ENV,
                   capture_output=True)
    suite = ET.parse(xml).getroot().find("testsuite")
    return int(suite.get("tests")), int(suite.get("errors")), int(suite.get("failures"))


def case_teardown(jobs, extra=()):
    """Fixtures whose teardown fails where no test of memguard's process
    carries it: a session fixture torn down after each process's last test
    (a lane's end, a recycle), a module fixture torn down at a recycle in
    its module. Each is an entry of its own, named as pytest names it (the
    test pytest tears the scope down after), as many as pytest counts, and
    the run exits as pytest does (1)."""
    suite = os.path.join(SUITES, "teardown")
    xml = os.path.join(WORK, "memguard.xml")
    rep = same_as_pytest([suite], jobs, tuple(extra) + ("--adapter", "junit=" + xml))
    if rep is None:
        return
    # JUnit's testcases as pytest's own --junitxml: a teardown error is in
    # the testcase of the test it is named after, whichever lane tore the
    # scope down (before: at -j 2 with recycles, a testcase of its own
    # beside that test's pass, where another lane's program tore it down)
    def cases(path):
        return sorted((tc.get("classname"), tc.get("name"),
                       tuple(sorted(c.tag for c in tc if c.tag in ("failure", "error", "skipped"))))
                      for tc in ET.parse(path).getroot().iter("testcase"))
    if os.path.exists(xml):
        mine, theirs = cases(xml), cases(os.path.join(WORK, "pytest.xml"))
        check(mine == theirs, "JUnit testcases as pytest's: only memguard %s, only pytest %s"
              % ([c for c in mine if c not in theirs][:5], [c for c in theirs if c not in mine][:5]))
    else:
        check(False, "a JUnit file was written")
    tests, errors, failures = pytest_counts([suite])
    got = entries(rep)
    torn = sorted(n for n, s, m, _ in got if is_teardown_error(m))
    check(torn == ["test_mod_a.py::test_a5", "test_mod_b.py::test_b4"],
          "the teardown errors, once each, named as pytest names them: %s" % torn)
    check(all(s == "fail" for n, s, m, _ in got if is_teardown_error(m)),
          "a teardown error is a failure (exit 1, as pytest), not memguard's error (3)")
    check(len(got) == tests and len(torn) == errors + failures,
          "as many entries as pytest's %d (%d errors): %d, %d" % (tests, errors, len(got),
                                                                 len(torn)))
    msgs = {n: m for n, s, m, _ in got if is_teardown_error(m)}
    check("module a teardown broke" in msgs.get("test_mod_a.py::test_a5", ""),
          "the module fixture's error: %r" % msgs.get("test_mod_a.py::test_a5", "")[:300])
    check("session teardown broke" in msgs.get("test_mod_b.py::test_b4", ""),
          "the session fixture's error: %r" % msgs.get("test_mod_b.py::test_b4", "")[:300])
    if "--recycle-at" in extra:
        check(sum(s.get("recycles", 0) for s in rep["shards"]) >= 3, "recycled")


def case_pyflakes(jobs, extra=()):
    if not os.path.isdir(PYFLAKES_TESTS):
        print("SKIP: %s not installed (python3-pyflakes)" % PYFLAKES_TESTS)
        sys.exit(77)
    args = [PYFLAKES_TESTS]
    if extra:
        # 1 MiB more after each test (a plugin; pytest alone loads it too):
        # the rss limit recycles every ~100 tests, inside modules and classes
        ENV["PYTHONPATH"] = os.path.join(SUITES, "grow_plugin")
        args = ["-p", "mg_grow_plugin", PYFLAKES_TESTS]
    rep = same_as_pytest(args, jobs, extra)
    if rep is not None:
        check(len(tests_of(rep)) > 500, "pyflakes' suite is all there: %d" % len(tests_of(rep)))
    if rep is not None and extra:
        recycles = sum(s.get("recycles", 0) for s in rep["shards"])
        check(recycles >= 3, "recycled mid-suite: %d" % recycles)
    return rep


def case_junit_ids():
    """memguard's JUnit ids (classname, name) are pytest's own --junitxml's,
    for a suite with classes, parameters and a package path."""
    suite = os.path.join(SUITES, "states")
    want = set(pytest_outcomes([suite]))
    xml = os.path.join(WORK, "memguard.xml")
    rc, rep, _, err = memguard(["-j", "2", "--adapter", "junit=" + xml], pytest_cmd(suite))
    check(os.path.exists(xml), "a JUnit file was written (stderr: %s)" % err[-2000:])
    if not os.path.exists(xml):
        return
    got = {(tc.get("classname"), tc.get("name"))
           for tc in ET.parse(xml).getroot().iter("testcase")}
    check(got == want, "JUnit ids as pytest's: only memguard %s, only pytest %s"
          % (sorted(got - want)[:5], sorted(want - got)[:5]))
    # and its testcases as pytest's: one for a test that passed and whose
    # teardown failed, with an <error>, a setup's error an <error> too
    # (before: two testcases, a pass and a <failure>; a setup's <failure>)
    def cases(path):
        return sorted((tc.get("classname"), tc.get("name"),
                       tuple(sorted(c.tag for c in tc if c.tag in ("failure", "error", "skipped"))))
                      for tc in ET.parse(path).getroot().iter("testcase"))
    mine, theirs = cases(xml), cases(os.path.join(WORK, "pytest.xml"))
    check(mine == theirs, "JUnit testcases as pytest's: only memguard %s, only pytest %s"
          % ([c for c in mine if c not in theirs][:5], [c for c in theirs if c not in mine][:5]))


def case_select():
    """-k and -m are pytest's: memguard lists what pytest selects."""
    suite = os.path.join(SUITES, "states")
    args = [suite, "-k", "param or marked or group", "-m", "not slow"]
    rep = same_as_pytest(args, 1)
    if rep is not None:
        names = sorted(tests_of(rep))
        # the module pytest skips at collection is among its skipped
        # whatever -k and -m select
        check(names == ["test_module_skip.py", "test_states.py::TestGroup::test_in_class",
                        "test_states.py::test_param[1]", "test_states.py::test_param[2]",
                        "test_states.py::test_param[a b]"], "selected: %s" % names)


def fixture_log():
    log = os.path.join(WORK, "fixtures.log")
    lines = open(log).read().split("\n") if os.path.exists(log) else []
    by_pid = {}
    for line in filter(None, lines):
        pid, what = line.split(" ", 1)
        by_pid.setdefault(pid, []).append(what)
    return by_pid


def case_fixtures_recycle():
    """Recycles in the middle of a module: every process sets up the session
    and each module it runs tests of once, and tears them down in order."""
    suite = os.path.join(SUITES, "fixtures")
    env = dict(ENV, FIXTURE_LOG=os.path.join(WORK, "fixtures.log"))
    rc, rep, _, err = memguard(["-j", "1", "--recycle-at", "rss=100M"], pytest_cmd(suite),
                               env=env)
    check(rc == 0, "exit 0, got %d: %s" % (rc, err[-2000:]))
    if rep is None:
        return check(False, "a report")
    t = tests_of(rep)
    check(len(t) == 12 and all(s == "pass" for s, _, _ in t.values()), "12 tests pass")
    recycles = sum(s.get("recycles", 0) for s in rep["shards"])
    check(recycles >= 2, "recycled at least twice, %d" % recycles)
    by_pid = fixture_log()
    check(len(by_pid) == recycles + 1, "one process per generation: %d" % len(by_pid))
    modules_set_up = []
    for pid, seq in by_pid.items():
        check(seq[0] == "setup session" and seq[-1] == "teardown session",
              "pid %s: session first and last: %s" % (pid, seq))
        inner = seq[1:-1]
        check(len(inner) % 2 == 0 and all(
            inner[i].startswith("setup module ") and
            inner[i + 1] == "teardown " + inner[i][len("setup "):]
            for i in range(0, len(inner), 2)), "pid %s: modules set up then torn down: %s"
              % (pid, seq))
        mods = [w.split()[-1] for w in inner[::2]]
        check(len(mods) == len(set(mods)), "pid %s: each module set up once" % pid)
        modules_set_up += mods
    # a module recycled mid-way is set up again in the next process
    check(len(modules_set_up) > 2, "modules set up %s" % modules_set_up)
    # and pytest alone sets each up once in one process
    log = os.path.join(WORK, "fixtures.log")
    os.unlink(log)
    subprocess.run(pytest_cmd("-q", suite), cwd=WORK, env=env, capture_output=True)
    direct = fixture_log()
    check(len(direct) == 1 and list(direct.values())[0] == [
        "setup session", "setup module test_mod_a", "teardown module test_mod_a",
        "setup module test_mod_b", "teardown module test_mod_b", "teardown session"],
        "pytest alone: %s" % direct)


def no_shared_left():
    """-x/--maxfail: the files the run's pytest processes shared (the
    failures counted) are gone with the run (before: a .failed file was left
    in TMPDIR at every run that failed)."""
    left = [f for f in os.listdir(WORK) if f.startswith("memguard-pytest-")]
    check(not left, "nothing of -x's left in TMPDIR: %s" % left)


def case_crash(maxfail):
    suite = os.path.join(SUITES, "crash")
    rc, rep, _, err = memguard(["-j", "1"], pytest_cmd(*(["-x"] if maxfail else []), suite))
    check(rc == 1, "exit 1, got %d: %s" % (rc, err[-2000:]))
    no_shared_left()
    if rep is None:
        return check(False, "a report")
    t = tests_of(rep)
    check(t["test_crash.py::test_before"][0] == "pass", "test_before passes")
    check(t["test_crash.py::test_segv"][0] == "crash" and "SIGSEGV" in t["test_crash.py::test_segv"][1],
          "test_segv: crash by SIGSEGV: %s" % (t["test_crash.py::test_segv"],))
    if maxfail:
        for n in ("test_after", "test_fails_after"):
            s, m, _ = t["test_crash.py::" + n]
            check(s == "skip" and m.startswith("not run: stopping after 1 failures"),
                  "-x: %s not run: %s %s" % (n, s, m))
        # pytest alone: the process dies with the test
        p = subprocess.run(pytest_cmd("-x", suite), cwd=WORK, env=ENV, capture_output=True)
        check(p.returncode == -signal.SIGSEGV, "pytest alone dies of SIGSEGV: %d" % p.returncode)
    else:
        check(t["test_crash.py::test_after"][0] == "pass", "the run goes on: test_after passes")
        check(t["test_crash.py::test_fails_after"][0] == "fail", "test_fails_after fails")


def case_dying():
    """A test that maps 3 GiB and segfaults at once, faster than any sample
    (--interval 1): the plugin's "dying" line (the host library's handler,
    behind pytest's faulthandler and without it) says how much it held, so
    past --recycle-at va=2G it is an out-of-memory death, retried once
    alone: memory-limit, not a plain crash, and the generation's peak is
    the 3 GiB. pytest alone dies of the SIGSEGV."""
    suite = os.path.join(SUITES, "dying")
    p = subprocess.run(pytest_cmd("-q", suite), cwd=WORK, env=ENV, capture_output=True)
    check(p.returncode == -signal.SIGSEGV, "pytest alone dies of SIGSEGV: %d" % p.returncode)
    for plugins in ([], ["-p", "no:faulthandler"]):
        rc, rep, _, err = memguard(["-j", "1", "--interval", "1", "--recycle-at", "va=2G"],
                                   pytest_cmd(*plugins, suite))
        check(rc == 1, "%s: exit 1, got %d: %s" % (plugins, rc, err[-1000:]))
        if rep is None:
            check(False, "a report")
            continue
        t = tests_of(rep)
        s, m, _ = t.get("test_dying.py::test_burst_then_segv", ("", "", ""))
        check(s == "memory-limit" and "SIGSEGV" in m and "out of memory" in m,
              "%s: an out-of-memory death, retried: %s %s" % (plugins, s, m[:200]))
        check(t.get("test_dying.py::test_after", ("",))[0] == "pass",
              "%s: the run goes on" % plugins)
        peaks = [g.get("peak_va", 0) for sh in rep["shards"] for g in sh["generations"]]
        check(max(peaks) >= 3 << 30, "%s: the peak the host said as it died: %s"
              % (plugins, peaks))


def case_admit():
    """The plugin's admission is the host library's (mg_verdict_admit): a
    test whose run line came before anyone knew how far the tests rise
    (--pipeline 8: every line sent at once, no expect) is still kept from
    the process it would take past the kill limit, by the largest rise a
    test there made: a recycle before it, no kill."""
    suite = os.path.join(SUITES, "admit")
    rc, rep, _, err = memguard(["-j", "1", "--pipeline", "8", "--kill-at", "va=2G"],
                               pytest_cmd(suite))
    check(rc == 0, "exit 0, got %d: %s" % (rc, err[-1000:]))
    if rep is None:
        return check(False, "a report")
    t = tests_of(rep)
    check(len(t) == 7 and all(s == "pass" for s, _, _ in t.values()), "7 tests pass: %s" % t)
    check(sum(s.get("kills", 0) for s in rep["shards"]) == 0, "no kill: %s"
          % [s.get("kills") for s in rep["shards"]])
    check(sum(s.get("recycles", 0) for s in rep["shards"]) >= 1, "recycled instead")
    # no history and no expect: the rise is this process's own, and said so
    check("this host's largest rise" in err, "the recycle names the host's own rise: %s"
          % err[-1000:])


def case_admit_known():
    """A test history knows (protocol v4's "known") is admitted by its own
    rise, not the largest a test of the process made: after a 1200 MiB
    transient test, six that keep 200 MiB each all run in one process under
    a 2 GiB kill limit when planned from the first run's report (before:
    the process recycled before one of them for the first test's rise)."""
    suite = os.path.join(SUITES, "admit_known")
    args = ["-j", "1", "--pipeline", "8", "--kill-at", "va=2G"]
    cmd = pytest_cmd("-p", "no:randomly", suite)
    rc, rep, _, err = memguard(args, cmd)
    check(rc == 0, "first run: exit 0, got %d: %s" % (rc, err[-1000:]))
    if rep is None:
        return check(False, "a report")
    hist = os.path.join(WORK, "history.json")
    with open(hist, "w") as f:
        json.dump(rep, f)
    rc, rep, _, err = memguard(args + ["--history", hist], cmd)
    check(rc == 0, "with history: exit 0, got %d: %s" % (rc, err[-1000:]))
    if rep is None:
        return check(False, "a report")
    t = tests_of(rep)
    check(len(t) == 7 and all(s == "pass" for s, _, _ in t.values()), "7 tests pass: %s" % t)
    check(sum(s.get("kills", 0) for s in rep["shards"]) == 0, "no kill")
    check(sum(s.get("recycles", 0) for s in rep["shards"]) == 0, "no recycle: %s"
          % [g.get("reason") for s in rep["shards"] for g in s["generations"]])


def case_maxfail_two_lanes():
    """-x across lanes: after the first failure no lane starts another test."""
    suite = os.path.join(SUITES, "states")
    rc, rep, _, err = memguard(["-j", "2"], pytest_cmd("-x", "-p", "no:randomly", suite))
    check(rc == 1, "exit 1, got %d" % rc)
    no_shared_left()
    if rep is None:
        return check(False, "a report")
    states = [s for s, _, _ in tests_of(rep).values()]
    check(states.count("fail") >= 1, "a failure")
    check(states.count("skip") >= 5, "the rest not run: %s" % states)


def lastfailed(cache):
    """The node ids of pytest's cache's lastfailed in folder CACHE."""
    path = os.path.join(cache, "v", "cache", "lastfailed")
    return sorted(json.load(open(path))) if os.path.exists(path) else []


def case_lastfailed(extra=()):
    """pytest's cache after a run of two lanes (and, with extra, a recycle
    after every test) is the one pytest's own run leaves: every lane's
    failures in lastfailed, a test that passed now out of it, so a later
    `pytest --lf` runs what failed (before: the last lane's pytest wrote
    its share over the others')."""
    suite = os.path.join(WORK, "lf")
    os.mkdir(suite)
    lanes_dir = os.path.join(WORK, "lf_lanes")
    os.mkdir(lanes_dir)
    with open(os.path.join(suite, "test_lf.py"), "w") as f:
        # in the first round under memguard (--lane-tmpdir: a TEST_TMPDIR
        # a lane) no test ends until both lanes have started one, so each
        # lane fails some however slowly the other's pytest starts (before:
        # 0.1 s a test, and on a loaded machine one lane ran them all)
        f.write("import os\nimport time\n\n\n"
                "def both_lanes():\n"
                "    lane = os.environ.get('TEST_TMPDIR')\n"
                "    if not lane or not os.environ['MG_LF_FAIL'].startswith('0,1,'):\n"
                "        return\n"
                "    d = os.environ['MG_LF_LANES']\n"
                "    open(os.path.join(d, os.path.basename(lane)), 'a').close()\n"
                "    for _ in range(600):\n"
                "        if len(os.listdir(d)) >= 2:\n"
                "            return\n"
                "        time.sleep(0.1)\n\n\n")
        for i in range(12):
            f.write("def test_%02d():\n    both_lanes()\n"
                    "    assert '%d' not in os.environ['MG_LF_FAIL'].split(',')\n\n\n" % (i, i))
    caches = {who: os.path.join(WORK, "cache_" + who) for who in ("pytest", "memguard")}

    def cmd(who, *args):
        return [PYTHON, "-m", "pytest", "-p", "no:randomly", "--rootdir", suite,
                "-o", "cache_dir=" + caches[who], *args, suite]

    # the first round fails all but two, so that each lane (which takes
    # its tests as it goes) fails some; the second mends most and breaks
    # another; the third runs --lf; the fourth empties the cache first
    # (once: with recycles, a later process emptied what earlier ones had
    # written)
    # (and the fifth, --lf over an empty cache, runs every test: in every
    # process of the run, whatever the others have written by then)
    xml = os.path.join(WORK, "lf.xml")
    for fail, args in (("0,1,2,3,4,6,7,8,9,11", ()), ("1,5,7", ()), ("5", ("--lf",)),
                       ("0,11", ("--cache-clear",)), ("2,9", ("--cache-clear", "--lf"))):
        env = dict(ENV, MG_LF_FAIL=fail, MG_LF_LANES=lanes_dir)
        subprocess.run(cmd("pytest", "-q", "--junitxml", xml, *args), cwd=WORK, env=env,
                       capture_output=True)
        want_ran = {tc.get("name"): "fail" if tc.find("failure") is not None else "pass"
                    for tc in ET.parse(xml).getroot().iter("testcase")}
        rc, rep, _, err = memguard(["-j", "2", "--lane-tmpdir", *extra], cmd("memguard", *args),
                                   env=env)
        check(rep is not None, "a report (stderr: %s)" % err[-2000:])
        if rep is not None:
            ran = {n.split("::")[-1]: s for n, (s, _, _) in tests_of(rep).items()}
            check(ran == want_ran, "MG_LF_FAIL=%s %s: ran %s, pytest's own %s"
                  % (fail, " ".join(args), sorted(ran.items()), sorted(want_ran.items())))
        want, got = lastfailed(caches["pytest"]), lastfailed(caches["memguard"])
        check(want and got == want, "MG_LF_FAIL=%s %s: lastfailed %s, pytest's own %s"
              % (fail, " ".join(args), got, want))
        if rep is not None and fail.startswith("0,1,"):
            lanes = [s for s in rep["shards"] if any(t.get("s") == "fail" for t in s["tests"])]
            check(len(lanes) == 2, "failures in both lanes: %d" % len(lanes))
        if rep is not None and extra and args != ("--lf",):
            recycles = sum(s.get("recycles", 0) for s in rep["shards"])
            check(recycles >= 8, "recycled: %d" % recycles)


def case_lastfailed_kill():
    """A failure pytest recorded before memguard killed its process at a
    limit (a later test's) is in the cache's lastfailed, as in pytest's own
    run (before: the killed process wrote nothing, and the failure was
    lost; here the only process of the run was killed, so no lastfailed at
    all, and a later --lf ran every test)."""
    suite = os.path.join(WORK, "lfk")
    os.mkdir(suite)
    with open(os.path.join(suite, "test_lfk.py"), "w") as f:
        f.write("def test_a_fails():\n    assert 0\n\n\n"
                "def test_b_big():\n    b = bytearray(200 << 20)\n    assert b[-1] == 0\n")
    caches = {who: os.path.join(WORK, "cache_" + who) for who in ("pytest", "memguard")}

    def cmd(who):
        return [PYTHON, "-m", "pytest", "-p", "no:randomly", "--rootdir", suite,
                "-o", "cache_dir=" + caches[who], suite]

    subprocess.run(cmd("pytest"), cwd=WORK, env=ENV, capture_output=True)
    rc, rep, _, err = memguard(["-j", "1", "--kill-at", "rss=120M"], cmd("memguard"))
    check(rc == 1, "exit 1, got %d (stderr: %s)" % (rc, err[-2000:]))
    if rep is not None:
        t = tests_of(rep)
        check(t.get("test_lfk.py::test_b_big", ("",))[0] == "memory-limit",
              "test_b_big killed at the limit: %s" % (t.get("test_lfk.py::test_b_big"),))
    want, got = lastfailed(caches["pytest"]), lastfailed(caches["memguard"])
    check(want == ["test_lfk.py::test_a_fails"], "pytest's own lastfailed: %s" % want)
    check("test_lfk.py::test_a_fails" in got, "lastfailed after the kill: %s" % got)


def cgroup_make():
    for base, limit in (("/sys/fs/cgroup/memory", "memory.limit_in_bytes"),
                        ("/sys/fs/cgroup", "memory.max")):
        d = os.path.join(base, "memguard-pytest-%d" % os.getpid())
        try:
            os.mkdir(d)
            with open(os.path.join(d, limit), "w") as f:
                f.write("%d\n" % (512 << 20))
            if limit == "memory.max":
                with open(os.path.join(d, "memory.swap.max"), "w") as f:
                    f.write("0\n")
            return d
        except OSError:
            continue
    return None


def case_cgroup_oom():
    """Tests that keep 50 MiB each in a 512 MiB memory cgroup: pytest alone
    is OOM-killed; under memguard every test passes, with recycles."""
    cg = cgroup_make()
    if cg is None:
        print("SKIP: cannot make a memory cgroup (needs root)")
        sys.exit(77)
    suite = os.path.join(SUITES, "grow")
    try:
        p = subprocess.run(pytest_cmd("-q", suite), cwd=WORK, env=ENV, capture_output=True,
                           preexec_fn=lambda: _enter(cg))
        check(p.returncode == -signal.SIGKILL, "pytest alone is killed (SIGKILL): %d"
              % p.returncode)
        rc, rep, _, err = memguard(["-j", "1"], pytest_cmd(suite), cgroup=cg)
        check(rc == 0, "memguard exit 0, got %d: %s" % (rc, err[-2000:]))
        if rep is not None:
            t = tests_of(rep)
            check(len(t) == 20 and all(s == "pass" for s, _, _ in t.values()),
                  "20 tests pass: %s" % sorted(set(s for s, _, _ in t.values())))
            check(sum(s.get("recycles", 0) for s in rep["shards"]) >= 1, "recycled")
            check(sum(s.get("kills", 0) for s in rep["shards"]) == 0, "no kill")
    finally:
        for _ in range(100):
            try:
                os.rmdir(cg)
                break
            except OSError:
                import time
                time.sleep(0.02)


def case_slow_exit():
    """A pytest process that takes 3 s to exit after bye at the run's end:
    memguard kills it after a second and ends (it once waited for its PID
    namespace's init while the init waited for that host to be reaped)."""
    suite = os.path.join(SUITES, "slow_exit")
    for jobs in ("1", "2"):
        rc, rep, _, err = memguard(["-j", jobs], pytest_cmd(suite), hang=120)
        check(rc == 0 and rep is not None, "-j %s: exit 0, got %d %s" % (jobs, rc, err[-500:]))


def case_slow_collect():
    """A pytest process whose collection takes 11 s greets only after it:
    it has the listing's time (60 s), not a native host's 10 s to say
    hello, and its tests run."""
    suite = os.path.join(SUITES, "slow_collect")
    rc, rep, _, err = memguard(["-j", "1"], pytest_cmd(suite))
    check(rc == 0, "exit 0, got %d: %s" % (rc, err[-1000:]))
    if rep is not None:
        t = tests_of(rep)
        check(sorted(s for s, _, _ in t.values()) == ["pass", "pass"], "both pass: %s" % t)


def case_marks():
    """A test whose output holds protocol v2 marks for every ordinal: the
    plugin speaks v3 (the run's secret in its marks), so those bytes stay
    the test's output and move nothing onto its neighbours (a v2 plugin's
    marks could be forged so)."""
    suite = os.path.join(SUITES, "marks")
    for extra in ([], ["--pipeline", "1"]):
        rc, rep, _, err = memguard(["-j", "1", *extra], pytest_cmd(suite))
        check(rc == 0 and rep is not None, "%s: exit 0, got %d %s" % (extra, rc, err[-500:]))
        if rep is None:
            continue
        got = {n.split("::")[-1]: o for n, (_, _, o) in tests_of(rep).items()}
        forger = got.get("test_forger", "")
        for word in ("forged out", "forged err", "forger out"):
            check(word in forger, "%s: test_forger's output holds %r: %r" % (extra, word, forger))
        check(forger.count("\x1e\x1fmg:") == 16, "%s: the forged bytes kept: %r" % (extra, forger))
        check(
            sorted(got.get("test_before", "").split("\n")) == ["", "before err", "before out"],
            "%s: test_before's output: %r" % (extra, got.get("test_before")),
        )
        quiet, after = got.get("test_quiet", ""), got.get("test_after")
        check(quiet == "", "%s: test_quiet: %r" % (extra, quiet))
        check(after == "after out\n", "%s: test_after: %r" % (extra, after))


def case_collect_error():
    """A module that does not import: pytest exits 2 and runs nothing;
    memguard runs nothing either, and the error is an entry of its own, fail
    with pytest's text (exit 1; before: exit 3, the error on stderr only),
    at -j 1 and 2. With --continue-on-collection-errors pytest runs the
    rest and exits 1 ("1 passed, 1 error"): memguard too, the error an
    entry of its own, fail, named as pytest's summary names it, at -j 1 and
    2 (each lane's pytest collects it again: one entry); also when it is
    all there was to collect, and `memguard list` fails for it (before, the
    run passed: exit 0, the error nowhere). Split with --node, node 1 records
    it, and without --continue-on-collection-errors every node fails."""
    suite = os.path.join(SUITES, "collect_error")
    p = subprocess.run(pytest_cmd("-q", suite), cwd=WORK, env=ENV, capture_output=True)
    check(p.returncode == 2, "pytest alone: 2, got %d" % p.returncode)
    for j in ("1", "2"):
        rc, rep, out, err = memguard(["-j", j], pytest_cmd(suite))
        check(rc == 1, "memguard -j %s: 1, got %d %s" % (j, rc, err[-500:]))
        got = entries(rep) if rep else []
        check([(n, st) for n, st, _, _ in got] == [("test_broken.py", "fail")],
              "-j %s: the error alone, no test run: %s" % (j, got))
        check(got and "SyntaxError" in got[0][2], "pytest's text: %s" % got)
        check("1 error during collection: pytest runs no test then" in err,
              "said on stderr: %s" % err[-500:])
    go_on = "--continue-on-collection-errors"
    for args in ([suite], [suite + "/test_broken.py"]):
        p = subprocess.run(pytest_cmd("-q", go_on, *args), cwd=WORK, env=ENV,
                           capture_output=True, text=True)
        check(p.returncode == 1, "pytest alone %s: 1, got %d" % (args, p.returncode))
        want = {"test_broken.py": "fail"}
        if args == [suite]:
            check("1 passed, 1 error" in p.stdout, "pytest: %s" % p.stdout[-300:])
            want["test_fine.py::test_fine"] = "pass"
        for j in ("1", "2"):
            rc, rep, out, err = memguard(["-j", j], pytest_cmd(go_on, *args))
            check(rc == 1, "memguard -j %s %s: 1, got %d %s" % (j, args, rc, err[-500:]))
            if rep is None:
                continue
            got = entries(rep)
            check({name: state for name, state, _, _ in got} == want and len(got) == len(want),
                  "-j %s %s: entries %s" % (j, args, [(n, s) for n, s, _, _ in got]))
            msg = [m for n, _, m, _ in got if n == "test_broken.py"]
            check(msg and msg[0].startswith("error collecting: ") and "SyntaxError" in msg[0],
                  "the error's message is pytest's: %s" % msg)
    # split over CI nodes: every node's pytest collects the error, node 1
    # records it, so the merged report has it once (before: once a node)
    names = []
    for n in ("1", "2"):
        rc, rep, out, err = memguard(["--node", n + "/2", "--allow-no-tests"],
                                     pytest_cmd(go_on, suite))
        got = entries(rep) if rep else []
        names += [name for name, _, _, _ in got]
        if n == "1":
            check(rc == 1 and "test_broken.py" in [name for name, _, _, _ in got],
                  "node 1 records the error and fails: %d %s" % (rc, got))
        else:
            check("test_broken.py) is node 1's to record, not node 2's" in err,
                  "node 2 says whose it is: %s" % err[-500:])
    check(sorted(names) == ["test_broken.py", "test_fine.py::test_fine"],
          "the nodes' reports have each entry once: %s" % names)
    # without --continue-on-collection-errors no node runs a test, and pytest
    # exits 2 on each: every node fails (before: node 2 exited 5, or 0 with
    # --allow-no-tests), node 1 with the entry, node 2 saying it is node 1's
    for allow in ([], ["--allow-no-tests"]):
        for n in ("1", "2"):
            rc, rep, out, err = memguard(["--node", n + "/2"] + allow, pytest_cmd(suite))
            got = [name for name, _, _, _ in entries(rep)] if rep else None
            check(rc == 1, "node %s %s without %s: 1, got %d %s" % (n, allow, go_on, rc,
                                                                   err[-500:]))
            check(got == (["test_broken.py"] if n == "1" else []),
                  "node %s %s: entries %s" % (n, allow, got))
            if n == "2":
                check("node 1's to record, not node 2's; no test ran for it, so this node "
                      "fails too" in err, "node 2 says why it fails: %s" % err[-500:])
    p = subprocess.run([MEMGUARD, "list", "--", *pytest_cmd(go_on, suite)], cwd=WORK, env=ENV,
                       capture_output=True, text=True)
    check(p.returncode == 1 and p.stdout == "test_fine.py::test_fine\n" and
          "test_broken.py: error collecting: " in p.stderr,
          "memguard list: %d %r %s" % (p.returncode, p.stdout, p.stderr[-500:]))


def case_skip_only():
    """A suite whose one module pytest skips at collection: pytest exits 5
    (no tests ran) and so does memguard, its report holding the skip, and
    on node 2 of 2 too (before: the skip counted as a test that ran, exit
    0; on node 2 "no test ran for it, so this node fails too", exit 1)."""
    suite = os.path.join(SUITES, "skip_only")
    p = subprocess.run(pytest_cmd("-q", suite), cwd=WORK, env=ENV, capture_output=True)
    check(p.returncode == 5, "pytest itself exits 5, got %d" % p.returncode)
    for node in ([], ["--node", "2/2"]):
        rc, rep, _, err = memguard(["-j", "1", *node], pytest_cmd(suite))
        check(rc == 5, "%s: exit 5 as pytest's, got %d: %s" % (node, rc, err[-500:]))
        if not node and rep is not None:
            state, msg, _ = tests_of(rep).get("test_only_skip.py", ("", "", ""))
            check(state == "skip" and msg.startswith("skipped: could not import"),
                  "the skipped module: %s %s" % (state, msg[:100]))


def case_exit_mid_test():
    """pytest.exit() in a test: pytest ends its run there and exits with the
    returncode. With 0 the test is a pass and the run passes, as directly
    (before: a crash, exit 1), said in the test's output; with 3 the test is
    a fail naming it, and the run fails, as directly. The test after it runs
    (pytest's run does not), at -j 1 and 2. What the exiting test printed is
    its own output (before, it was lost); the module's fixture is torn down
    once a host, as pytest does; where the exiting test is pytest's last and
    runs first in its host, the tests after it are set up afresh (before,
    their setup failed). A KeyboardInterrupt the test raises is a fail
    naming it."""
    suite = os.path.join(SUITES, "exit")
    mark = os.path.join(WORK, "torn")
    for at in ("test_exits", "test_after"):
        for code, want_rc, state in (("0", 0, "pass"), ("3", 1, "fail")):
            env = dict(ENV, MG_PYTEST_EXIT_CODE=code, MG_PYTEST_EXIT_AT=at,
                       MG_PYTEST_EXIT_MARK=mark)
            p = subprocess.run(pytest_cmd("-q", suite), cwd=WORK, env=env, capture_output=True)
            check(p.returncode == int(code), "pytest alone: %s, got %d" % (code, p.returncode))
            check(open(mark).read() == "torn down\n", "pytest alone tears down once")
            os.unlink(mark)
            for j in ("1", "2"):
                rc, rep, out, err = memguard(["-j", j], pytest_cmd(suite), env=env)
                check(rc == want_rc, "%s returncode %s -j %s: exit %d, got %d %s"
                      % (at, code, j, want_rc, rc, err[-500:]))
                torn = open(mark).read() if os.path.exists(mark) else ""
                if os.path.exists(mark):
                    os.unlink(mark)
                # one teardown a host process that ran the module's tests:
                # one at -j 1, one or two at -j 2
                lines = torn.splitlines()
                check(set(lines) == {"torn down"} and 1 <= len(lines) <= int(j),
                      "%s -j %s: the module fixture is torn down: %r" % (at, j, torn))
                if rep is None:
                    continue
                got = {n: (st, m, o) for n, st, m, o in entries(rep)}
                want = {"test_exit.py::test_before": "pass", "test_exit.py::test_exits": "pass",
                        "test_exit.py::test_after": "pass"}
                want["test_exit.py::" + at] = state
                check({n: v[0] for n, v in got.items()} == want, "states: %s" % got)
                for n, (st, m, o) in got.items():
                    mine = n == "test_exit.py::" + at
                    check(("exiting" in o) == mine, "%s's output: %r" % (n, o))
                st, m, o = got.get("test_exit.py::" + at, ("", "", ""))
                said = "pytest.exit() in this test (returncode %s): done here" % code
                check(said in (o if code == "0" else m), "it says why: %r %r" % (m, o))
    # a KeyboardInterrupt the test raises: pytest stops there ("1 passed",
    # Interrupted, exit 2); under memguard the test fails naming it, with
    # its output, and the tests after it run (before: a crash, "host exited
    # with status 0 during the test", its output lost)
    env = dict(ENV, MG_PYTEST_EXIT_KI="1")
    p = subprocess.run(pytest_cmd("-q", suite), cwd=WORK, env=env, capture_output=True)
    check(p.returncode == 2, "pytest alone: 2, got %d" % p.returncode)
    for j in ("1", "2"):
        rc, rep, out, err = memguard(["-j", j], pytest_cmd(suite), env=env)
        check(rc == 1, "KeyboardInterrupt -j %s: exit 1, got %d %s" % (j, rc, err[-500:]))
        got = {n: (st, m, o) for n, st, m, o in entries(rep)} if rep else {}
        check({n: v[0] for n, v in got.items()} == {
            "test_exit.py::test_before": "pass", "test_exit.py::test_exits": "fail",
            "test_exit.py::test_after": "pass"}, "KeyboardInterrupt states: %s" % got)
        st, m, o = got.get("test_exit.py::test_exits", ("", "", ""))
        check("KeyboardInterrupt in this test" in m and "exiting" in o,
              "KeyboardInterrupt said, output kept: %r %r" % (m, o))
    # os._exit(N) in a test: pytest's process is gone, its exit N; with 0
    # the test passes and so does the run, as directly (before: a crash,
    # exit 1), with 5 it is a crash and the run fails; the test after it
    # runs in a fresh host either way
    for code, want_rc, state in (("0", 0, "pass"), ("5", 1, "crash")):
        env = dict(ENV, MG_PYTEST_OS_EXIT=code)
        p = subprocess.run(pytest_cmd("-q", suite), cwd=WORK, env=env, capture_output=True)
        check(p.returncode == int(code), "pytest alone, os._exit(%s): got %d"
              % (code, p.returncode))
        for j in ("1", "2"):
            rc, rep, out, err = memguard(["-j", j], pytest_cmd(suite), env=env)
            check(rc == want_rc, "os._exit(%s) -j %s: exit %d, got %d %s"
                  % (code, j, want_rc, rc, err[-500:]))
            got = {n: (st, m) for n, st, m, o in entries(rep)} if rep else {}
            check({n: v[0] for n, v in got.items()} == {
                "test_exit.py::test_before": "pass", "test_exit.py::test_exits": state,
                "test_exit.py::test_after": "pass"}, "os._exit(%s) states: %s" % (code, got))
            m = got.get("test_exit.py::test_exits", ("", ""))[1] or ""
            check(("exited with status %s during the test" % code) in m,
                  "os._exit(%s) said: %r" % (code, m))
    # pytest's last test exiting first in its host (--order history, the
    # longest first): the tests after it here are set up afresh (before,
    # its fixtures stayed set up, and the next test's setup failed:
    # "previous item was not torn down properly")
    env = dict(ENV, MG_PYTEST_EXIT_AT="test_after", MG_PYTEST_EXIT_MARK=mark)
    rc, rep, out, err = memguard(["-j", "1"], pytest_cmd(suite), env=env)
    check(rep is not None, "a report to plan from")
    if rep is None:
        return
    for s in rep["shards"]:
        for t in s["tests"]:
            t["d"] = 5.0 if t["n"].endswith("::test_after") else 0.001
    history = os.path.join(WORK, "history.json")
    with open(history, "w") as f:
        json.dump(rep, f)
    rc, rep, out, err = memguard(["-j", "1", "--history", history, "--order", "history"],
                                 pytest_cmd(suite), env=env)
    check(rc == 0, "last test exiting first: exit 0, got %d %s" % (rc, err[-500:]))
    if rep is not None:
        got = [(n, st, m) for n, st, m, o in entries(rep)]
        check([n for n, st, m in got][0] == "test_exit.py::test_after", "the order: %s" % got)
        check(all(st == "pass" for n, st, m in got) and len(got) == 3, "states: %s" % got)


def case_xdist_refused():
    suite = os.path.join(SUITES, "states")
    rc, rep, out, err = memguard(["-j", "1"], pytest_cmd("-n", "2", suite))
    check(rc == 2, "usage error (2), got %d" % rc)
    check("'-n 2'" in err and "-j" in err, "the message names -n 2 and -j: %s" % err)
    rc, rep, out, err = memguard(["-j", "1"], pytest_cmd("--junitxml=x.xml", suite))
    check(rc == 2 and "--adapter junit" in err, "--junitxml refused: %d %s" % (rc, err))
    # the spaced forms too, by memguard before pytest starts, naming the
    # option as given (found by a sweep: refused by the plugin, which said
    # it came from the configuration and that pytest refused it)
    for opt in ("--junitxml", "--junit-xml"):
        rc, rep, out, err = memguard(["-j", "1"], pytest_cmd(opt, "x.xml", suite))
        check(rc == 2 and ("pytest option '%s x.xml'" % opt) in err and
              "configuration" not in err and "pytest refused" not in err,
              "%s x.xml refused: %d %s" % (opt, rc, err))
    env = dict(ENV, PYTEST_ADDOPTS="-n 2")
    rc, rep, out, err = memguard(["-j", "1"], pytest_cmd(suite), env=env)
    check(rc != 0, "-n from PYTEST_ADDOPTS: refused, got %d" % rc)
    check("pytest-xdist's -n" in err, "the message says why: %s" % err[-1000:])


def case_refused():
    """What runs no test or would lose its file is refused, exit 2, no test
    run: --collect-only (--co), --setup-plan on the command line (before:
    every test ran, its side effects too, and a failing one failed the
    run where pytest lists them and exits 0); the same and --junitxml from
    PYTEST_ADDOPTS (before: --junitxml's file was written by each process
    over the others': tests="0"); python's -I and -E, which ignore the
    PYTHONPATH memguard loads its plugin by (before: exit 3 with a
    ModuleNotFoundError traceback)."""
    suite = os.path.join(WORK, "refused")
    os.mkdir(suite)
    ran = os.path.join(WORK, "ran")
    with open(os.path.join(suite, "test_r.py"), "w") as f:
        f.write("def test_r():\n    open(%r, 'w').close()\n    assert 0\n" % ran)
    p = subprocess.run(pytest_cmd("--collect-only", suite), cwd=WORK, env=ENV,
                       capture_output=True)
    check(p.returncode == 0 and not os.path.exists(ran), "pytest --collect-only: 0, no test")
    for opt in ("--collect-only", "--co", "--setup-plan", "--fixtures", "--version"):
        rc, rep, out, err = memguard(["-j", "1"], pytest_cmd(opt, suite))
        check(rc == 2 and ("'%s' runs no test" % opt) in err, "%s: %d %s" % (opt, rc, err))
    for opts, said in (("--co", "--collect-only"), ("--setup-plan", "--setup-plan"),
                       ("--fixtures", "--fixtures"), ("--markers", "--markers"),
                       ("--fixtures-per-test", "--fixtures-per-test"),
                       ("--version", "--version"), ("--junitxml=x.xml", "--junitxml")):
        env = dict(ENV, PYTEST_ADDOPTS=opts)
        rc, rep, out, err = memguard(["-j", "1"], pytest_cmd(suite), env=env)
        check(rc == 2 and ("pytest's %s (here from the configuration" % said) in err,
              "%s from PYTEST_ADDOPTS: %d %s" % (opts, rc, err[-1000:]))
    check(not os.path.exists(os.path.join(WORK, "x.xml")), "no junit file written")
    for py in ("-I", "-E", "-bI"):
        rc, rep, out, err = memguard(["-j", "1"], [PYTHON, py, "-m", "pytest", suite])
        check(rc == 2 and ("python option '%s'" % py) in err, "%s: %d %s" % (py, rc, err))
    check(not os.path.exists(ran), "no test ran")


def case_duplicates():
    """A file given twice on the command line: pytest collects and runs its
    tests twice; under memguard the second of each is NODEID#2 (as a
    GoogleTest or CTest test listed again), each with its own state, and
    the exit is pytest's (before: "listed the test ... more than once",
    exit 3)."""
    suite = os.path.join(WORK, "dup")
    os.mkdir(suite)
    path = os.path.join(suite, "test_d.py")
    with open(path, "w") as f:
        f.write("def test_a():\n    pass\n\ndef test_b():\n    assert 0\n")
    p = subprocess.run(pytest_cmd("-q", path, path), cwd=WORK, env=ENV, capture_output=True)
    check(p.returncode == 1 and b"2 failed, 2 passed" in p.stdout,
          "pytest itself runs each twice: %d %r" % (p.returncode, p.stdout[-200:]))
    for j in ("1", "2"):
        rc, rep, out, err = memguard(["-j", j], pytest_cmd(path, path))
        check(rc == 1, "-j %s: exit 1 as pytest's, got %d: %s" % (j, rc, err[-500:]))
        got = {n: st for n, (st, m, o) in tests_of(rep).items()} if rep else {}
        check(got == {"dup/test_d.py::test_a": "pass", "dup/test_d.py::test_a#2": "pass",
                      "dup/test_d.py::test_b": "fail", "dup/test_d.py::test_b#2": "fail"},
              "-j %s states: %s" % (j, got))


def case_nul_message():
    """A NUL in a skip's, a failure's or an xfail's message is '?' in the
    report, each test keeping pytest's state and the run pytest's exit
    (before: a protocol error, the test an error, exit 3); a message over
    16 KiB is cut with a note."""
    suite = os.path.join(WORK, "nul")
    os.mkdir(suite)
    with open(os.path.join(suite, "test_n.py"), "w") as f:
        f.write("import pytest\n"
                "def test_ok(): pass\n"
                "def test_sk(): pytest.skip('a\\x00b')\n"
                "def test_f(): assert False, 'x\\x00y'\n"
                "@pytest.mark.xfail(reason='r\\x00s')\n"
                "def test_x(): assert 0\n"
                "def test_long(): assert False, 'x' * 40000\n")
    p = subprocess.run(pytest_cmd("-q", suite), cwd=WORK, env=ENV, capture_output=True)
    check(p.returncode == 1, "pytest itself: 1, got %d" % p.returncode)
    rc, rep, out, err = memguard(["-j", "1"], pytest_cmd(suite))
    check(rc == 1, "exit 1 as pytest's, got %d: %s" % (rc, err[-1000:]))
    got = tests_of(rep) if rep is not None else {}
    want = {"test_n.py::test_ok": ("pass", ""), "test_n.py::test_sk": ("skip", "skipped: a?b"),
            "test_n.py::test_x": ("skip", "xfailed: r?s")}
    for name, (state, msg) in want.items():
        st, m, _ = got.get(name, ("", "", ""))
        check(st == state and m == msg, "%s: %s %r" % (name, st, m))
    st, m, _ = got.get("test_n.py::test_f", ("", "", ""))
    check(st == "fail" and "AssertionError: x?y" in m, "test_f: %s %r" % (st, m[:200]))
    # a message over 16 KiB is cut, and says so (before: cut silently)
    st, m, _ = got.get("test_n.py::test_long", ("", "", ""))
    check(st == "fail" and len(m.encode()) <= 16384 and
          re.search(r"\[memguard: message cut: \d+ of \d+ bytes shown\]$", m),
          "test_long: %s %d %r" % (st, len(m), m[-120:]))


def case_usage_error():
    """pytest's usage error (a path not found, an option it does not know:
    pytest exits 4) is the user's: memguard exits 2 with pytest's message and
    its own (before: 3, "before its greeting"); a conftest that fails to
    import (pytest exits 4 too) is not."""
    suite = os.path.join(SUITES, "states")
    # -k/-m expressions pytest cannot parse are its usage errors too (found
    # by a sweep: memguard's 3, "exited with status 4 before it started")
    for extra, said in (((os.path.join(WORK, "no-such-dir"),), "not found"),
                        (("--no-such-option",), "--no-such-option"),
                        (("-k", "bad ("), "Wrong expression passed to '-k'"),
                        (("-m", "bad expr ("), "Wrong expression passed to '-m'")):
        p = subprocess.run(pytest_cmd(suite, *extra), cwd=WORK, env=ENV, capture_output=True)
        check(p.returncode == 4, "pytest alone: usage error 4, got %d" % p.returncode)
        rc, rep, out, err = memguard(["-j", "1"], pytest_cmd(suite, *extra))
        check(rc == 2, "usage error (2) for %s, got %d: %s" % (extra, rc, err[-1000:]))
        check(said in err and "pytest refused its command line" in err,
              "pytest's message and memguard's: %s" % err[-1000:])
    # a conftest that fails to import: pytest exits 4 too, but the command
    # line is fine: memguard's 3, not a usage error
    broken = os.path.join(WORK, "broken")
    os.mkdir(broken)
    with open(os.path.join(broken, "conftest.py"), "w") as f:
        f.write("import no_such_module_here\n")
    with open(os.path.join(broken, "test_x.py"), "w") as f:
        f.write("def test_x():\n    pass\n")
    p = subprocess.run(pytest_cmd(broken), cwd=WORK, env=ENV, capture_output=True)
    check(p.returncode == 4, "pytest alone, broken conftest: 4, got %d" % p.returncode)
    rc, rep, out, err = memguard(["-j", "1"], pytest_cmd(broken))
    check(rc == 3 and "refused its command line" not in err,
          "a broken conftest is no usage error: %d %s" % (rc, err[-1000:]))


def case_detect():
    """auto picks the pytest driver for pytest, py.test and python -m pytest;
    --driver pytest refuses a command that is none of them."""
    suite = os.path.join(SUITES, "crash")
    cmds = [pytest_cmd(suite, "-k", "before")]
    for prog in ("pytest-3", "py.test-3", "pytest", "py.test"):
        path = shutil.which(prog)
        if path:
            cmds.append([path, "-p", "no:cacheprovider", "--rootdir", suite, suite, "-k",
                         "before"])
    check(len(cmds) >= 2, "a pytest script is installed: %s" % cmds)
    for cmd in cmds:
        rc, rep, _, err = memguard(["-j", "1"], cmd)
        check(rc == 0 and rep is not None, "%s: exit %d %s" % (cmd[0], rc, err[-500:]))
        if rep:
            check(rep["shards"][0].get("driver") == "pytest", "%s: driver %s"
                  % (cmd[0], rep["shards"][0].get("driver")))
            check(list(tests_of(rep)) == ["test_crash.py::test_before"], "one test")
    rc, rep, _, err = memguard(["-j", "1", "--driver", "pytest"], [PYTHON, "-c", "pass"])
    check(rc == 2, "--driver pytest with python -c: usage error (2), got %d" % rc)
    check("needs a pytest command line" in err, "says why: %s" % err[-500:])


CASES = {
    "states_j1": lambda: case_states(1),
    "states_j2": lambda: case_states(2),
    # one run line at a time: the next test is never known at a teardown
    "states_pipeline1": lambda: case_states(1, ["--pipeline", "1"]),
    "teardown_j1": lambda: case_teardown(1),
    "teardown_j2": lambda: case_teardown(2),
    # a recycle after every test: each process tears down what it set up
    "teardown_recycle": lambda: case_teardown(1, ["--recycle-at", "rss=1M"]),
    "teardown_recycle_j2": lambda: case_teardown(2, ["--recycle-at", "rss=1M"]),
    "pyflakes_j1": lambda: case_pyflakes(1),
    "pyflakes_j2": lambda: case_pyflakes(2),
    # recycles in the middle of its modules and classes: pytest's own process
    # sits at ~35 MiB, and the grow plugin adds 1 MiB a test
    "pyflakes_recycle_j1": lambda: case_pyflakes(1, ["--recycle-at", "rss=140M"]),
    # an rss limit is the lanes' pool: 140 MiB each
    "pyflakes_recycle_j2": lambda: case_pyflakes(2, ["--recycle-at", "rss=280M"]),
    "select": case_select,
    "junit_ids": case_junit_ids,
    "fixtures_recycle": case_fixtures_recycle,
    "crash": lambda: case_crash(False),
    "crash_maxfail": lambda: case_crash(True),
    "dying": case_dying,
    "admit": case_admit,
    "admit_known": case_admit_known,
    "maxfail_two_lanes": case_maxfail_two_lanes,
    "lastfailed_j2": case_lastfailed,
    "lastfailed_recycle_j2": lambda: case_lastfailed(["--recycle-at", "rss=1M"]),
    "lastfailed_kill": case_lastfailed_kill,
    "cgroup_oom": case_cgroup_oom,
    "collect_error": case_collect_error,
    "marks": case_marks,
    "slow_exit": case_slow_exit,
    "slow_collect": case_slow_collect,
    "xdist_refused": case_xdist_refused,
    "refused": case_refused,
    "nul_message": case_nul_message,
    "duplicates": case_duplicates,
    "usage_error": case_usage_error,
    "exit_mid_test": case_exit_mid_test,
    "skip_only": case_skip_only,
    "detect": case_detect,
}

if __name__ == "__main__":
    if CASE == "--cases":  # the cases CMake registers, which must be these
        registered = sys.argv[4:]
        if sorted(registered) != sorted(CASES):
            print("registered %s, check.py has %s" % (sorted(registered), sorted(CASES)))
            sys.exit(1)
        sys.exit(0)
    if subprocess.run([PYTHON, "-c", "import pytest"], capture_output=True).returncode:
        print("SKIP: %s has no pytest (python3-pytest, ci/setup --test)" % PYTHON)
        sys.exit(77)
    try:
        CASES[CASE]()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    sys.exit(1 if failures else 0)
