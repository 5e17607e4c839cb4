#!/usr/bin/env python3
"""hostile_names.py DRIVER BASE_REPORT gitlab|markdown

Renders a report whose suite and test names carry '#', quotes, '$', URLs
and e-mail addresses (the basic case, renamed) and checks them the way
their readers do:

gitlab:   GitLab's metrics parser (Gitlab::Ci::Parsers::Metrics::Generic):
          per non-blank line, delete from the first '#' to the end, then
          Ruby's Shellwords.shellsplit (re-implemented below, step by step);
          an unmatched quote drops the whole report. Every sample must split
          into a name and a number, one distinct name per sample.
markdown: the GitHub step summary rendered by cmark-gfm with GitHub's
          extensions (Debian's cmark-gfm; skip 77 where not installed): no
          <a> from a name, each name shown as it is; no '$' left where
          GitHub's math could take it (each inside <span>$</span>, the
          escape GitHub documents; math is not cmark-gfm's, so by rule).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SUITES = ['core#1 "q" it\'s', "it's #2 $HOME"]
NAMES = {
    'items/transient_pin': 'see https://evil.example/x?a=1#frag',
    'parse/huge': 'www.example.com/path',
    'parse/utf8': 'math $a+b$ and $$x$$ and $`y`$',
    'io/mmap_storm': 'mail user@example.com now',
    'io/segv': 'ftp://host/ and http://a.b #x',
}
# An allocation site of a suspect (issue 25): its function, file and the
# item that pins it are the program's text, each shown as it is.
SITE = {'kind': 'mmap', 'bytes': 16777216, 'count': 2,
        'frames': [{'function': 'see https://evil.example/f?a=1#x', 'file': 'src/www.example.com.c',
                    'line': 9},
                   {'function': 'math $a+b$ `c`'}],
        'pins': ['mail pin@example.com now']}
SITE_TEXTS = ['see https://evil.example/f?a=1#x (www.example.com.c:9)', 'math $a+b$ `c`',
              'pinned by: mail pin@example.com now']


def shellsplit(line):
    """Ruby's Shellwords.shellsplit: the same alternatives in the same order."""
    words, field, started, rest = [], '', False, line
    while rest:
        m = re.match(r'\s+', rest)
        if m:
            if started:
                words.append(field)
            field, started, rest = '', False, rest[m.end():]
            continue
        m = re.match(r"'([^']*)'", rest)
        if m:
            field += m.group(1)
        else:
            m = re.match(r'"((?:[^"\\]|\\.)*)"', rest, re.S)
            if m:
                field += re.sub(r'\\([$`"\\\n])', r'\1', m.group(1))
            else:
                m = re.match(r'\\(.)', rest, re.S)
                if m:
                    field += m.group(1)
                else:
                    m = re.match(r'[^\s\'"\\]+', rest)
                    if not m:
                        raise ValueError('Unmatched quote: %r' % line)
                    field += m.group(0)
        started, rest = True, rest[m.end():]
    if started:
        words.append(field)
    return words


def gitlab_parse(text):
    """name -> value, as GitLab's parser keeps them; raises as it does."""
    metrics = {}
    for line in text.splitlines(True):
        if not line.strip():
            continue
        words = shellsplit(re.sub(r'#.*$', '', line, flags=re.M))
        if not words or len(words) < 2:
            continue
        metrics.setdefault(words[0], []).append(words[1])
    return metrics


def make_report(base, out):
    with open(base) as f:
        r = json.load(f)
    for i, s in enumerate(r['shards']):
        s['suite'] = SUITES[i % len(SUITES)]
        for t in s['tests']:
            if t['name'] == 'io/mmap_storm':
                t['sites'] = [SITE]
            t['name'] = NAMES.get(t['name'], t['name'])
            if t['state'] != 'pass':
                t['message'] = 'failed at https://ci.example/job/1 ($x$)'
    for s in r['suspects']:
        s['name'] = NAMES.get(s['name'], s['name'])
    with open(out, 'w') as f:
        json.dump(r, f)


def render(driver, case, spec):
    subprocess.run([driver, '--render', case, spec], check=True)


def check_gitlab(driver, case, tmp):
    render(driver, case, 'gitlab=' + os.path.join(tmp, 'gl'))
    text = open(os.path.join(tmp, 'gl', 'metrics.txt'), encoding='utf-8').read()
    samples = [l for l in text.splitlines() if l and not l.startswith('#')]
    try:
        metrics = gitlab_parse(text)
    except ValueError as e:
        print('FAIL: GitLab would drop the metrics report:', e)
        return 1
    bad = 0
    for name, values in metrics.items():
        if len(values) != 1:
            print('FAIL: %d samples share the name %r (GitLab keeps one)' % (len(values), name))
            bad = 1
        if not re.fullmatch(r'[0-9.]+', values[0]):
            print('FAIL: %r has value %r, not a number' % (name, values[0]))
            bad = 1
    if sum(len(v) for v in metrics.values()) != len(samples):
        print('FAIL: %d samples, GitLab read %d' % (len(samples), len(metrics)))
        bad = 1
    if not any('suite=core＃1 "q" it\'s}' in n for n in metrics):
        print('FAIL: no key keeps the suite name readable:', sorted(metrics)[:3])
        bad = 1
    if shutil.which('promtool'):
        p = subprocess.run(['promtool', 'check', 'metrics'], input=text.encode())
        if p.returncode:
            print('FAIL: promtool rejects the metrics')
            bad = 1
    return bad


def check_markdown(driver, case, tmp):
    cmark = shutil.which('cmark-gfm')
    if not cmark:
        print('SKIP: cmark-gfm (GitHub\'s cmark fork; Debian: cmark-gfm) is not installed; '
              'the step summary check did not run')
        return 77
    path = os.path.join(tmp, 'summary.md')
    render(driver, case, 'github=' + path)
    html = subprocess.run([cmark, '-e', 'autolink', '-e', 'table', '-e', 'strikethrough',
                           '--unsafe', path], check=True, capture_output=True,
                          text=True).stdout
    bad = 0
    if '<a ' in html:
        print('FAIL: a name became a link:', re.findall(r'<a [^>]*>[^<]*</a>', html)[:5])
        bad = 1
    loose = re.sub(r'<span>\$</span>', '', html)
    if '$' in loose:
        print('FAIL: a bare $ that GitHub math can take:',
              [l for l in loose.splitlines() if '$' in l][:3])
        bad = 1
    text = re.sub(r'<[^>]*>', '', html)
    if 'Where the suspects allocated' not in text:
        print('FAIL: no allocation site in the summary')
        bad = 1
    for n in list(NAMES.values()) + SUITES + SITE_TEXTS:
        shown = n.replace('&', '&amp;').replace('"', '&quot;')
        if n.startswith('core') or n.startswith("it's"):
            continue  # suites are not in the summary
        if shown not in text:
            print('FAIL: %r is not shown as it is' % n)
            bad = 1
    if '<table>' not in html:
        print('FAIL: the summary has no table')
        bad = 1
    return bad


def main():
    driver, base, kind = sys.argv[1:4]
    tmp = tempfile.mkdtemp()
    try:
        case = os.path.join(tmp, 'case')
        os.mkdir(case)
        make_report(base, os.path.join(case, 'report.json'))
        rc = (check_gitlab if kind == 'gitlab' else check_markdown)(driver, case, tmp)
    finally:
        shutil.rmtree(tmp)
    if rc == 0:
        print('ok: %s readers accept the hostile names' % kind)
    return rc


if __name__ == '__main__':
    sys.exit(main())
