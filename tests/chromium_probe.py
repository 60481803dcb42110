"""Run a measuring script inside a page in headless Chromium and read back what it reports.

The page is copied next to itself (so its relative links still resolve) with ``script``
appended; the script must end by calling ``report(value)``, which writes ``value`` as JSON into
the DOM that ``--dump-dom`` prints. Network access is cut (every host name resolves nowhere), so
a page that needs the network cannot pass by fetching it.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.shared_work import SharedWorkFailed, claim, finish, wait_for

__all__ = [
    "PROBE_MARK",
    "chromium",
    "in_parallel",
    "is_probe_file",
    "probe",
    "probe_copy",
    "probe_viewport",
    "run_chromium",
    "shared_probes",
]

#: Headless Chromium processes run at once by :func:`in_parallel`: a page's load mostly waits
#: (MathJax, timers), so a few browsers overlap their waits on a 2-core machine.
BROWSERS = 4


def in_parallel(function, items):
    """``[function(item) for item in items]``, up to :data:`BROWSERS` at a time, in order; the
    first exception is raised."""
    items = list(items)
    with ThreadPoolExecutor(max_workers=BROWSERS) as pool:
        return list(pool.map(function, items))


#: Every file the probes write beside a page has this in its name; page scans skip such files
#: (pytest workers probe the same site at the same time).
PROBE_MARK = "__probe"
_COPIES = itertools.count()


def probe_copy(page: Path, what: str = "copy") -> Path:
    """A file name beside ``page`` that no other probe uses (this process, this thread's
    call), marked with :data:`PROBE_MARK`."""
    return page.with_name(f"{page.stem}.{PROBE_MARK}_{what}_{os.getpid()}_{next(_COPIES)}.html")


def is_probe_file(path: Path) -> bool:
    """True for a file a probe wrote (and will delete), which a scan of the site must skip."""
    return PROBE_MARK in path.name


_REPORT = """
<script>
function report(value) {
  var pre = document.createElement('pre');
  pre.id = 'rankaudit-probe';
  pre.textContent = JSON.stringify(value);
  document.body.appendChild(pre);
}
window.addEventListener('load', function () {
  var ready = (window.MathJax && MathJax.startup && MathJax.startup.promise) || Promise.resolve();
  ready.then(function () { return new Promise(function (r) { setTimeout(r, 300); }); })
       .then(function () { %s })
       .catch(function (e) { report({error: String(e)}); });
});
</script>
"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail(
        "headless Chromium is not installed; `make test` installs it (apt-get install chromium)"
    )


def run_chromium(arguments: list[str], *, timeout: float) -> subprocess.CompletedProcess:
    """Headless Chromium with ``arguments``, in a profile folder of its own (so that several
    can run at once), local files readable from local pages, 20 s of virtual time."""
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        return subprocess.run(
            [
                chromium(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--allow-file-access-from-files",
                f"--user-data-dir={profile}",
                "--virtual-time-budget=20000",
                *arguments,
            ],
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def probe(page: Path, script: str, *, width: int = 1280, height: int = 800, dom: bool = False):
    """The value ``script`` reports from inside ``page`` in a ``width`` x ``height`` window
    (headless Chromium's window includes its chrome: the viewport is smaller; see
    :func:`probe_viewport`); with ``dom``, ``(value, the DOM Chromium printed after it)``."""
    text = page.read_text(encoding="utf-8")
    injected = _REPORT % script
    copy = probe_copy(page)
    copy.write_text(text.replace("</body>", injected + "</body>", 1), encoding="utf-8")
    try:
        proc = run_chromium(
            [
                "--host-resolver-rules=MAP * ~NOTFOUND",
                f"--window-size={width},{height}",
                "--hide-scrollbars",
                "--dump-dom",
                copy.as_uri(),
            ],
            timeout=180,
        )
    finally:
        copy.unlink()
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = re.search(r'<pre id="rankaudit-probe"[^>]*>(.*?)</pre>', proc.stdout, re.S)
    assert found, f"{page.name}: the probe never reported (page failed to load or script error)"
    value = json.loads(html.unescape(found.group(1)))
    assert not (isinstance(value, dict) and "error" in value), f"{page.name}: {value}"
    return (value, proc.stdout) if dom else value


_CHROME: dict[int, int] = {}


def probe_viewport(page: Path, script: str, *, width: int, height: int):
    """As :func:`probe`, with a viewport (``innerWidth`` x ``innerHeight``) of exactly
    ``width`` x ``height``: the window is enlarged by the height Chromium's own chrome takes,
    measured once on a blank page. The script's reported value must be a mapping; the viewport
    it ran in is checked."""
    if width not in _CHROME:
        blank = probe_copy(page, "viewport")
        blank.write_text("<html><body></body></html>", encoding="utf-8")
        try:
            seen = probe(blank, "report([innerWidth, innerHeight]);", width=width, height=height)
        finally:
            blank.unlink()
        _CHROME[width] = height - seen[1]
    wrapped = script.replace("report(", "report_viewport(")
    prelude = "function report_viewport(v) { v.viewport = [innerWidth, innerHeight]; report(v); }\n"
    value = probe(page, prelude + wrapped, width=width, height=height + _CHROME[width])
    assert value["viewport"] == [width, height], f"viewport {value['viewport']}"
    return value


def shared_probes(folder: Path, pages: list[Path], script: str, *, width: int = 1280,
                  height: int = 800) -> list[tuple[object, str]]:
    """``probe(page, script, dom=True)`` of every page, each page probed once per test run
    however many tests or workers ask (``tests/shared_work.py``): a caller claims the pages no
    one has claimed yet, probes them (:data:`BROWSERS` at a time), stores each result in
    ``folder`` and then reads the pages other workers probed. Two tests that need the same
    pages (the projector fit and the typeset-math check) thus split the browsers' work."""
    keys = [
        hashlib.sha256(f"{page}|{width}x{height}|{script}".encode()).hexdigest()[:24]
        for page in pages
    ]

    def probe_once(i: int) -> None:
        if not claim(folder, keys[i]):
            return
        try:
            value, dom = probe(pages[i], script, width=width, height=height, dom=True)
            (folder / f"{keys[i]}.json").write_text(json.dumps([value, dom]), encoding="utf-8")
        except BaseException as err:
            finish(folder, keys[i], f"{pages[i].name}: {type(err).__name__}: {err}")
            raise
        finish(folder, keys[i])

    in_parallel(probe_once, range(len(pages)))
    failures = wait_for(folder, keys, timeout=1800)
    if failures:
        raise SharedWorkFailed(f"probes failed in another worker: {sorted(failures.values())}")
    return [
        tuple(json.loads((folder / f"{key}.json").read_text(encoding="utf-8"))) for key in keys
    ]
