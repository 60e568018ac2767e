"""A real screen reader for the tests: GNOME Orca on a virtual X screen reading a browser.

What a blind player gets is what the screen reader *says*, not what the DOM
holds: a sentence put in a live region and in a live log is spoken twice, a
sentence followed by a focus change is cut off, and axe sees neither. So the
web client is played here as such a player plays it: Debian's Chromium (or
Firefox ESR) on an Xvfb screen, Orca reading it through AT-SPI, keys sent by
``xdotool`` (the X server's own input, as from a keyboard), and every
utterance Orca sends to its speech server written down as text with a
timestamp.

The pieces (all Debian packages, :data:`PACKAGES`), each started here and
stopped by its process id:

- ``Xvfb`` (it picks a free display itself, ``-displayfd``);
- a session bus (``dbus-daemon``) and the accessibility bus
  (``at-spi-bus-launcher``), with ``org.a11y.Status.IsEnabled`` set;
- ``speech-dispatcher`` with its ``dummy`` output module (there is no sound
  card): Orca talks to it as to any speech server;
- ``orca`` with a settings folder whose ``orca-customizations.py`` (Orca
  imports it at start) wraps Orca's own speech calls, so each utterance is one
  JSON line: the time, the text, and whether Orca asked the speech server to
  *interrupt* what it was saying (``speech.speak(..., interrupt=True)``), and
  each ``speech.stop()``. Key echo is turned off, as a player would;
- ``chromium`` with renderer accessibility on and a DevTools port, through
  which the harness only *looks* (Playwright over CDP: the page's DOM, the
  live regions' additions, where focus is); every action is a key;
- or ``firefox-esr`` (``Desktop.open(url, browser="firefox")``) in a fresh
  profile (:data:`FIREFOX_PREFS`: no first-run pages, checks, telemetry,
  updates, session restore or second tab; accessibility forced on, as
  ``GNOME_ACCESSIBILITY=1`` asks too), in the player's language (Debian's
  language packs), looked into the same way over WebDriver BiDi, which
  Firefox serves itself (:class:`.bidi.BiDiPage`: Playwright cannot drive
  Debian's Firefox). Its window has Firefox's toolbar: Tab past the page's
  end goes through it, as for any Firefox player.

How a cut-off utterance is told: the speech server is a dummy, so nothing
says when speaking ended. An utterance is taken to need ``len(text) / cps``
seconds, ``cps`` the desktop's speaking rate in characters a second
(:data:`CHARS_PER_SECOND`, espeak-ng's default 175 words a minute at about six
characters a word with the space, unless the test asks for a faster voice, as
practised screen-reader users set one; the page is told the same rate, its
``nimmt.pace``). It was *cut* when, before that time has passed, Orca stops
speech or speaks something else with ``interrupt=True``; an utterance queued
(``interrupt=False``) waits its turn and cuts nothing. The harness itself
listens like a person: it presses a key only once the last utterance had the
time to be said to its end.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import math
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .bidi import BiDiPage

__all__ = [
    "BROWSERS",
    "CHARS_PER_SECOND",
    "FIREFOX_PREFS",
    "PACKAGES",
    "SLOW",
    "Desktop",
    "KeyPress",
    "Utterance",
    "cut_off",
    "missing_packages",
    "norm",
    "speaking_time",
    "until",
]

#: Where Debian's language pack of Firefox ESR for a language is.
FIREFOX_LANGPACK = ("/usr/lib/firefox-esr/browser/extensions/"
                    "langpack-{lang}@firefox-esr.mozilla.org.xpi")
#: The Debian package of each program (or file) the harness runs.
PACKAGES = {
    "Xvfb": "xvfb", "dbus-daemon": "dbus", "dbus-send": "dbus",
    "/usr/libexec/at-spi-bus-launcher": "at-spi2-core", "speech-dispatcher": "speech-dispatcher",
    "orca": "orca", "xdotool": "xdotool", "xdpyinfo": "x11-utils", "chromium": "chromium",
    "firefox-esr": "firefox-esr", FIREFOX_LANGPACK.format(lang="sr"): "firefox-esr-l10n-sr",
    FIREFOX_LANGPACK.format(lang="cs"): "firefox-esr-l10n-cs",
}
#: The browsers :meth:`Desktop.open` starts, each with what it needs of :data:`PACKAGES`:
#: Firefox speaks its own window's words (its toolbar, which Tab reaches past the page's
#: end) in the player's language from Debian's language packs.
BROWSERS = {"chromium": ("chromium",),
            "firefox": ("firefox-esr", *(FIREFOX_LANGPACK.format(lang=lang)
                                         for lang in ("sr", "cs")))}
#: Speaking speed assumed for the dummy speech server (see the module's docstring).
CHARS_PER_SECOND = 17.0
#: Seconds the harness gives something it waits for (a key reaching the page, Orca saying
#: what it should) before it takes it as not coming: a machine at load 6 on two cores
#: delays each step by seconds. Waits end as soon as the thing happens.
SLOW = 30.0


def norm(text: str) -> str:
    """``text`` with its white space made single spaces, as compared with what Orca said."""
    return " ".join(text.split())


def until(ready: Callable[[], object], timeout: float = SLOW, step: float = 0.1) -> bool:
    """Whether ``ready()`` came true within ``timeout`` seconds (polled every ``step``)."""
    deadline = time.monotonic() + timeout
    while True:
        if ready():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(step)

CUSTOMIZATIONS = '''
# Written by tests/screenreader/orca.py: every utterance as one JSON line.
import json, threading, time
from orca import settings, speech

settings.enableKeyEcho = False
# No say-all when a page loads: Orca 43 can handle a page's busy event after its load has
# completed (its queue reorders them), say "Loading. Please wait." over the say-all, and
# never hear the say-all end; believing itself still reading, it then refuses focus mode
# at every focus change ("Not using focus mode because we're in SayAll").
settings.sayAllOnLoad = False
try:
    from orca import settings_manager
    settings_manager.getManager().setSetting("enableKeyEcho", False)
    settings_manager.getManager().setSetting("sayAllOnLoad", False)
except Exception:
    pass
_out = getattr(speech, "_nimmt_out", None) or open({path!r}, "a", buffering=1, encoding="utf-8")
speech._nimmt_out = _out
_lock = threading.Lock()

def _write(kind, text="", interrupt=None):
    line = json.dumps({{"t": time.time(), "kind": kind, "text": text, "interrupt": interrupt}})
    with _lock:
        _out.write(line + "\\n")

# Orca may run this file again into the same namespace when it reloads its settings:
# the functions it wraps are kept once, on the speech module.
if not hasattr(speech, "_nimmt_orig"):
    speech._nimmt_orig = (speech._speak, speech.stop, speech.speakKeyEvent,
                          speech.speakCharacter)
_speak, _stop, _key, _char = speech._nimmt_orig

def _logged_speak(text, acss, interrupt):
    _write("speech", text, bool(interrupt))
    return _speak(text, acss, interrupt)

def _logged_stop():
    _write("stop")
    return _stop()

def _logged_key(event, acss=None):
    _write("key", event.getKeyName(), True)
    return _key(event, acss)

def _logged_char(character, acss=None):
    _write("char", character, True)
    return _char(character, acss)

speech._speak, speech.stop = _logged_speak, _logged_stop
speech.speakKeyEvent, speech.speakCharacter = _logged_key, _logged_char
# How Orca says its two modes in this language, so the harness knows which it is in.
from orca import messages
if not getattr(speech, "_nimmt_modes", False):
    speech._nimmt_modes = True
    _write("modes", json.dumps([messages.MODE_FOCUS, messages.MODE_BROWSE,
                                messages.MODE_FOCUS_IS_STICKY]))
    # And how it begins what it says when a browse-mode command took a key.
    _write("browsing", json.dumps(sorted({{
        v.split("%")[0].strip() for k, v in vars(messages).items()
        if k.startswith(("NO_MORE_", "WRAPPING_TO_")) and isinstance(v, str)}})))
'''

#: Firefox ESR's preferences in its fresh profile (``user.js``): nothing but the page, as
#: Chromium's flags have it. No first-run, welcome or privacy-notice page, no default-browser
#: check, no telemetry, studies or data-submission notice, no updates (of Firefox, add-ons,
#: search engines), no session restore, nothing that opens a second tab or a bar Orca would
#: read (translations offered, a terms-of-use notice); accessibility on whatever Firefox
#: would guess (-1: always, as GNOME_ACCESSIBILITY=1 in its environment asks too).
FIREFOX_PREFS: dict[str, bool | int | str] = {
    "accessibility.force_disabled": -1,
    # First run and what it opens.
    "browser.aboutwelcome.enabled": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.firstrunSkipsHomepage": True,
    "browser.startup.homepage": "about:blank",
    "browser.startup.page": 0,
    "browser.startup.upgradeDialog.enabled": False,
    "browser.newtabpage.enabled": False,
    "browser.newtab.preload": False,
    "startup.homepage_welcome_url": "",
    "startup.homepage_welcome_url.additional": "",
    "startup.homepage_override_url": "",
    "trailhead.firstrun.didSeeAboutWelcome": True,
    "browser.preonboarding.enabled": False,
    "termsofuse.bypassNotification": True,
    "browser.uitour.enabled": False,
    "browser.messaging-system.whatsNewPanel.enabled": False,
    "browser.translations.enable": False,
    "browser.translations.automaticallyPopup": False,
    "browser.shell.checkDefaultBrowser": False,
    "browser.shell.skipDefaultBrowserCheckOnFirstRun": True,
    # Telemetry, studies, the data-submission notice and the privacy-notice tab.
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.policy.dataSubmissionPolicyBypassNotification": True,
    "datareporting.policy.firstRunURL": "",
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "toolkit.telemetry.unified": False,
    "toolkit.telemetry.archive.enabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.normandy.enabled": False,
    "app.shield.optoutstudies.enabled": False,
    "browser.discovery.enabled": False,
    "browser.ping-centre.telemetry": False,
    "browser.newtabpage.activity-stream.feeds.telemetry": False,
    # Updates and the network Firefox would use for itself.
    "app.update.disabledForTesting": True,
    "app.update.auto": False,
    "app.update.checkInstallTime": False,
    "extensions.update.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "extensions.systemAddon.update.enabled": False,
    "browser.search.update": False,
    "browser.region.update.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "identity.fxaccounts.enabled": False,
    "extensions.pocket.enabled": False,
    # No session to restore, no warning on closing.
    "browser.sessionstore.resume_from_crash": False,
    "browser.sessionstore.max_resumed_crashes": 0,
    "toolkit.startup.max_resumed_crashes": -1,
    "browser.tabs.warnOnClose": False,
    "browser.warnOnQuit": False,
    # Names typed into the lobby are not words: no "misspelled" from Orca.
    "layout.spellcheckDefault": 0,
    "browser.formfill.enable": False,
    "signon.rememberSignons": False,
}


SPEECHD_CONF = """AudioOutputMethod "libao"
AddModule "dummy" "sd_dummy" ""
DefaultModule dummy
LogLevel 3
"""

#: Every live region's addition and every focus move, with the time (the page's clock is
#: the wall clock).
LIVE_RECORDER = """() => {
  if (window.__live) return;
  window.__live = [];
  const liveOf = (node) => {
    for (let el = node.nodeType === 1 ? node : node.parentElement; el; el = el.parentElement) {
      const live = el.getAttribute('aria-live');
      if (live) return live;
      const role = el.getAttribute('role');
      if (role === 'log' || role === 'status') return 'polite';
      if (role === 'alert') return 'assertive';
    }
    return null;
  };
  new MutationObserver((muts) => {
    for (const m of muts) for (const n of m.addedNodes) {
      const live = liveOf(m.target);
      const text = (n.textContent || '').trim();
      if (live && live !== 'off' && text) {
        const el = m.target.nodeType === 1 ? m.target : m.target.parentElement;
        const id = el.id || el.getAttribute('role') || '';
        window.__live.push({t: Date.now() / 1000, live, text, id});
      }
    }
  }).observe(document.body, {childList: true, subtree: true});
  // Each focus move with the focused element's name: what Orca reads of a control it
  // moved to is that control, not a live message read again.
  window.__focus = [];
  const nameOf = (el) => (el.getAttribute('aria-label')
    || (el.labels && el.labels.length ? el.labels[0].textContent : '')
    || el.textContent || '').trim();
  document.addEventListener('focusin', (e) => {
    window.__focus.push({t: Date.now() / 1000, text: nameOf(e.target)});
  }, true);
}"""


@functools.cache
def own_pid_namespace() -> tuple[str, ...]:
    """The command prefix that runs a program in a PID namespace of its own (``unshare``),
    or nothing where this machine does not allow one.

    Orca runs once per user: at start it looks for another ``orca`` process of the same
    user (``pgrep -u``) and refuses to run beside it, and ``--replace`` kills it. Two
    desktops at once (two pytest workers, or two test runs on one machine) would stop
    each other's screen reader. In a namespace of its own, each Orca sees only itself.
    """
    for prefix in (("unshare", "--pid", "--fork", "--mount-proc", "--kill-child"),
                   ("unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc",
                    "--kill-child")):
        try:
            done = subprocess.run([*prefix, "true"], capture_output=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return prefix
    return ()


def missing_packages(browsers: Iterable[str] = tuple(BROWSERS)) -> list[str]:
    """The Debian packages of :data:`PACKAGES` whose program is not installed: the
    desktop's and those of ``browsers`` (:data:`BROWSERS`; all of them unless told)."""
    gone = set()
    others = {p for b, ps in BROWSERS.items() if b not in browsers for p in ps}
    for program, package in PACKAGES.items():
        if program in others:
            continue
        if not (Path(program).exists() if program.startswith("/") else shutil.which(program)):
            gone.add(package)
    return sorted(gone)


@dataclass(frozen=True)
class Utterance:
    """One thing Orca said (``kind`` ``speech``), a key it echoed (``key``, ``char``), or
    a stop of speech (``stop``, no text), at wall-clock time ``t``."""

    t: float
    kind: str
    text: str
    interrupt: bool | None


@dataclass(frozen=True)
class KeyPress:
    """A key the harness pressed (xdotool's key name) at wall-clock time ``t``; ``typed``:
    part of text typed into a field (a name, a number) rather than a command key."""

    t: float
    key: str
    typed: bool = False


def speaking_time(text: str, cps: float = CHARS_PER_SECOND) -> float:
    """Seconds the utterance ``text`` takes at ``cps`` characters a second."""
    return len(text) / cps


def cut_off(said: list[Utterance], i: int, cps: float = CHARS_PER_SECOND) -> Utterance | None:
    """What cut utterance ``said[i]`` short (see the module's docstring), if anything."""
    end = said[i].t + speaking_time(said[i].text, cps)
    for later in said[i + 1:]:
        if later.t >= end:
            return None
        if later.kind == "stop" or later.interrupt:
            return later
    return None


@dataclass
class Desktop:
    """A virtual screen with a session, Orca and a browser, in folder ``work``.

    Use as a context manager; :meth:`open` starts the browser (``browser``:
    Chromium or Firefox ESR, :data:`BROWSERS`) on a page. The browser and Orca speak
    ``lang`` (their own words: "push button", "frame"), at ``cps`` characters a second.
    """

    work: Path
    lang: str = "en"
    cps: float = CHARS_PER_SECOND
    #: The browser :meth:`open` starts unless told another (:data:`BROWSERS`).
    browser: str = "chromium"
    #: The page paces its messages by the voice's rate (``True``), or keeps its own
    #: default pace (``False``: a player who never opened Settings).
    paced: bool = True

    def __post_init__(self) -> None:
        self.work = self.work.resolve()
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    #: Held while Orca runs where it cannot have a PID namespace of its own.
    _turn: Any = None
    keys: list[KeyPress] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    page: Any = None
    #: The process's Playwright (the ``pw`` fixture): one per process, shared with the
    #: browser tests (a second one in the same thread refuses to start).
    pw: Any = None
    _browser: Any = None

    @property
    def speech_log(self) -> Path:
        return self.work / "speech.jsonl"

    # -- starting and stopping ------------------------------------------------------------

    def __enter__(self) -> Desktop:
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _spawn(self, args: list[str], log: str, **kw: Any) -> subprocess.Popen[bytes]:
        out = (self.work / f"{log}.log").open("wb")
        proc = subprocess.Popen(args, stdout=kw.pop("stdout", out), stderr=out,
                                env=kw.pop("env", self.env), start_new_session=True, **kw)
        self.procs.append(proc)
        return proc

    def _start(self) -> None:
        w = self.work
        if w.exists():
            shutil.rmtree(w)
        home = w / "home"
        for d in (home / ".config" / "speech-dispatcher", home / ".local" / "share",
                  w / "orca-prefs"):
            d.mkdir(parents=True)
        run = home / "run"
        run.mkdir(mode=0o700)
        locale = {"sr": "sr_RS.UTF-8", "cs": "cs_CZ.UTF-8"}.get(self.lang, "C.UTF-8")
        language = {"sr": "sr@latin:sr", "cs": "cs"}.get(self.lang, "en")
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_RUNTIME_DIR": str(run), "NO_AT_BRIDGE": "0", "GTK_MODULES": "gail:atk-bridge",
            "ACCESSIBILITY_ENABLED": "1", "QT_ACCESSIBILITY": "1", "LANGUAGE": language,
            "LC_MESSAGES": locale,
        }
        # The X server picks a free display and writes its number to the pipe.
        read, write = os.pipe()
        self._spawn(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24",
                     "-nolisten", "tcp"], "xvfb", pass_fds=(write,))
        os.close(write)
        with os.fdopen(read) as pipe:
            display = pipe.readline().strip()
        if not display:
            raise RuntimeError("Xvfb did not start: " + (w / "xvfb.log").read_text())
        self.env["DISPLAY"] = f":{display}"
        bus = self._spawn(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                          "dbus", stdout=subprocess.PIPE)
        assert bus.stdout is not None
        self.env["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().decode().strip()
        self._spawn(["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"], "atspi")
        self._wait(lambda: self._dbus("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus.GetAddress"),
                   "the accessibility bus")
        self._dbus("org.a11y.Bus", "/org/a11y/bus", "org.freedesktop.DBus.Properties.Set",
                   "string:org.a11y.Status", "string:IsEnabled", "variant:boolean:true")
        conf = home / ".config" / "speech-dispatcher"
        (conf / "speechd.conf").write_text(SPEECHD_CONF)
        (run / "speech-dispatcher").mkdir()
        self._spawn(["speech-dispatcher", "-s", "-t", "0", "-c", "unix_socket", "-S",
                     str(run / "speech-dispatcher" / "speechd.sock"), "-C", str(conf)], "speechd")
        (w / "orca-prefs" / "orca-customizations.py").write_text(
            CUSTOMIZATIONS.format(path=str(self.speech_log)))
        prefix = own_pid_namespace()
        if not prefix:
            # Orca would refuse to run beside another one of this user: desktops take
            # turns, machine-wide.
            self._turn = open(f"/tmp/nimmt-orca-{os.getuid()}.lock", "w")  # noqa: SIM115
            fcntl.flock(self._turn, fcntl.LOCK_EX)
        # Never --replace: that kills every other Orca of this user, a player's own too.
        # NIMMT_ORCA_DEBUG=1: Orca's own debug log too (several MB a game), kept with the
        # others (why Orca chose browse or focus mode, what it read from the tree).
        debug = ([f"--debug-file={w / 'orca-debug.log'}"]
                 if os.environ.get("NIMMT_ORCA_DEBUG") else [])
        self._spawn([*prefix, "orca", "-u", str(w / "orca-prefs"), *debug], "orca")
        self._wait(lambda: any(u.kind == "speech" for u in self.utterances()), "Orca's speech")

    def _dbus(self, dest: str, path: str, method: str, *args: str) -> bool:
        done = subprocess.run(["dbus-send", "--session", "--print-reply", f"--dest={dest}", path,
                               method, *args], env=self.env, capture_output=True, timeout=10)
        return done.returncode == 0

    @staticmethod
    def _wait(ready: Callable[[], bool], what: str, timeout: float = 3 * SLOW) -> None:
        if not until(ready, timeout):
            raise RuntimeError(f"{what} did not come up in {timeout:.0f} s")

    def open(self, url: str, browser: str | None = None) -> Any:
        """Start ``browser`` (:data:`BROWSERS`; the desktop's :attr:`browser` unless given) on
        ``url``; the page, for looking only, once it loaded: Playwright's over CDP for
        Chromium, a :class:`.bidi.BiDiPage` over WebDriver BiDi for Firefox ESR."""
        browser = browser or self.browser
        if browser not in BROWSERS:
            raise ValueError(f"no browser {browser!r}: one of {', '.join(BROWSERS)}")
        self.browser = browser
        self.page = self._firefox(url) if browser == "firefox" else self._chromium(url)
        self.page.set_default_timeout(3 * SLOW * 1000)
        self.page.wait_for_selector("body[data-ready='1']")
        self.page.evaluate(LIVE_RECORDER)
        # The page paces its messages by the time they take to say: the same voice (never
        # a faster one: a millisecond a character rounded up); or at its own default.
        if self.paced:
            self.page.evaluate("ms => localStorage.setItem('nimmt.pace', String(ms))",
                               math.ceil(1000 / self.cps))
        return self.page

    def _chromium(self, url: str) -> Any:
        """Start Chromium on ``url``: its page, through Playwright over CDP. On a loaded
        machine Chromium has been seen to accept the DevTools connection and never answer
        on it: then it is started again, once."""
        for attempt in range(2):
            proc = self._spawn_chromium(url, attempt)
            port_file = self.work / f"chrome{attempt}" / "DevToolsActivePort"
            self._wait(lambda f=port_file: f.exists() and bool(f.read_text().strip()),
                       "Chromium's DevTools port")
            port = port_file.read_text().split()[0]
            try:
                self._browser = self.pw.chromium.connect_over_cdp(
                    f"http://127.0.0.1:{port}", timeout=60_000 * (attempt + 1))
                break
            except Exception:
                if attempt:
                    raise
                proc.kill()
                proc.wait(timeout=30)
        self._wait(lambda: bool(self._browser.contexts and self._browser.contexts[0].pages),
                   "Chromium's page")
        return self._browser.contexts[0].pages[0]

    def _spawn_chromium(self, url: str, attempt: int) -> subprocess.Popen[bytes]:
        profile = self.work / f"chrome{attempt}"
        return self._spawn(
            ["chromium", "--no-sandbox", "--disable-gpu", "--force-renderer-accessibility",
             "--no-first-run", "--no-default-browser-check", "--disable-dev-shm-usage",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--password-store=basic", f"--lang={self.lang}",
             "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
             f"--user-data-dir={profile}", "--window-position=0,0",
             # An app window: the page alone, without the browser's toolbar and
             # its warning bar (--test-type), as a player's Tab stays in the page.
             "--window-size=1200,1000", "--test-type", f"--app={url}"], f"chromium{attempt}")

    def _firefox(self, url: str) -> BiDiPage:
        """Start Firefox ESR on ``url`` in a fresh profile (:data:`FIREFOX_PREFS`, the
        window Chromium's size): its page, through WebDriver BiDi."""
        profile = self.work / "firefox"
        profile.mkdir()
        (profile / "user.js").write_text("".join(
            f"user_pref({json.dumps(k)}, {json.dumps(v)});\n"
            for k, v in {**FIREFOX_PREFS, "intl.accept_languages": self.lang,
                         "intl.locale.requested": self.lang}.items()))
        # The main window's place and size, as Firefox keeps them between runs.
        (profile / "xulstore.json").write_text(json.dumps({
            "chrome://browser/content/browser.xhtml": {"main-window": {
                "screenX": "0", "screenY": "0", "width": "1200", "height": "1000",
                "sizemode": "normal"}}}))
        env = {**self.env, "GNOME_ACCESSIBILITY": "1", "MOZ_CRASHREPORTER_DISABLE": "1"}
        # Port 0: Firefox picks a free one (two desktops at once) and writes it down in
        # the profile.
        self._spawn(["firefox-esr", "--no-remote", "--new-instance", "--profile", str(profile),
                     "--remote-debugging-port=0", url], "firefox", env=env)
        server = profile / "WebDriverBiDiServer.json"

        def port() -> int | None:
            try:
                return int(json.loads(server.read_text())["ws_port"])
            except (OSError, ValueError, KeyError):
                return None

        self._wait(lambda: port() is not None, "Firefox's WebDriver BiDi port")
        page = BiDiPage(f"ws://127.0.0.1:{port()}", url, timeout=3 * SLOW)
        self._browser = page
        return page

    def close(self) -> None:
        """Stop everything started here, newest first, by process id (its session)."""
        if self._browser is not None:
            # The browser may be gone already: it is stopped below either way.
            with contextlib.suppress(Exception):
                self._browser.close()
            self._browser = None
        for proc in reversed(self.procs):
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
        self.procs.clear()
        if self._turn is not None:
            self._turn.close()
            self._turn = None

    # -- keys and speech ----------------------------------------------------------------------

    def key(self, *names: str, pause: float = 0.15) -> None:
        """Press each key (xdotool names: ``Tab``, ``Return``, ``v``, ``ctrl+a``)."""
        for name in names:
            self.keys.append(KeyPress(time.time(), name))
            subprocess.run(["xdotool", "key", "--clearmodifiers", name], env=self.env,
                           check=True, timeout=10)
            time.sleep(pause)

    def type(self, text: str) -> None:
        """Type ``text`` into the focused field, key by key, each key logged when it is
        sent (what Orca says after one is its answer, not a repeat)."""
        for ch in text:
            self.keys.append(KeyPress(time.time(), ch, typed=True))
            subprocess.run(["xdotool", "type", "--delay", "0", ch], env=self.env, check=True,
                           timeout=10)
            time.sleep(0.04)
        time.sleep(0.2)

    def utterances(self) -> list[Utterance]:
        """Everything Orca said so far, in order."""
        if not self.speech_log.exists():
            return []
        out = []
        for line in self.speech_log.read_text(encoding="utf-8").splitlines():
            if line.strip():
                d = json.loads(line)
                out.append(Utterance(d["t"], d["kind"], d["text"], d["interrupt"]))
        return out

    @staticmethod
    def mode_words(said: list[Utterance]) -> tuple[str, str, str]:
        """How Orca says focus mode, browse mode and sticky focus mode in its language."""
        modes = [json.loads(u.text) for u in said if u.kind == "modes"]
        if not modes:
            raise RuntimeError("Orca did not say how it names its modes")
        focus, browse, sticky = modes[-1]
        return focus, browse, sticky

    def focus_mode(self, force: bool = False) -> None:
        """Make sure Orca is in focus mode (keys go to the page's field, not to browse-mode
        commands): Orca says each change of mode; when the last it said was not focus
        mode, Orca+A (Insert+A) switches, as a player would press it. ``force``: switch
        whatever Orca said last (the keys typed went to browse-mode commands)."""
        said = self.utterances()
        focus, browse, _ = self.mode_words(said)
        last = [u.text for u in said if u.kind == "speech" and u.text in (focus, browse)]
        if last and last[-1] == focus and not force:
            return
        # Orca+A toggles: when Orca was in focus mode after all, it says browse mode, and a
        # second press comes back to focus mode.
        for _ in range(2):
            since = time.time()
            self.key("Insert+a")
            # Orca says the mode it switched to: wait for it (pressing again before it
            # did would switch back).
            # "Focus mode is sticky." after two quick presses is focus mode too.
            until(lambda t=since: self.said_like(t, (focus, browse)))
            words = self.said_like(since, (focus, browse))
            if words and words[-1].startswith(focus):
                return
        raise RuntimeError("Orca did not switch to focus mode")

    def browse_words(self) -> tuple[str, ...]:
        """How Orca begins, in its language, what it says when a browse-mode command took a
        key ("No more headings.", "Wrapping to top.")."""
        for u in reversed(self.utterances()):
            if u.kind == "browsing":
                return tuple(json.loads(u.text))
        raise RuntimeError("Orca did not say how it words its browse-mode answers")

    def browsing(self, since: float) -> bool:
        """Whether Orca took keys pressed since ``since`` as browse-mode commands (it says
        it found no more of something, or wrapped around the page)."""
        return bool(self.said_like(since, self.browse_words()))

    def said(self, since: float = 0.0) -> list[Utterance]:
        """The utterances (``speech`` only) from wall-clock time ``since`` on."""
        return [u for u in self.utterances() if u.kind == "speech" and u.t >= since]

    def said_like(self, since: float, starts: tuple[str, ...]) -> list[str]:
        """What was said from ``since`` on that starts with one of ``starts``."""
        return [u.text for u in self.said(since) if u.text.startswith(starts)]

    def hear(self, heard: Callable[[str], bool], since: float, timeout: float = SLOW) -> bool:
        """Wait until Orca says something (from ``since`` on) for which ``heard`` is true;
        False when it did not within ``timeout`` seconds."""
        return until(lambda: any(heard(u.text) for u in self.said(since)), timeout)

    def quiet(self, seconds: float = 0.8, timeout: float = 10.0) -> None:
        """Wait until Orca has said nothing new for ``seconds`` and its last utterance had
        the time to be said to its end (at most ``timeout``): a listener's pause."""
        deadline = time.monotonic() + timeout
        said = self.utterances()
        still = time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.1)
            now = self.utterances()
            if len(now) != len(said):
                said, still = now, time.monotonic()
                continue
            speech = [u for u in said if u.kind == "speech"]
            end = speech[-1].t + speaking_time(speech[-1].text, self.cps) if speech else 0.0
            if time.monotonic() - still >= seconds and time.time() >= end:
                return

    def live(self) -> list[dict[str, Any]]:
        """What the page put in its live regions: ``{t, live, text, id}`` each."""
        return list(self.page.evaluate("() => window.__live || []"))

    def focus_log(self) -> list[dict[str, Any]]:
        """Where focus moved on the page: ``{t, text}`` each, ``text`` the element's name."""
        return list(self.page.evaluate("() => window.__focus || []"))

    def transcript(self) -> Iterator[str]:
        """The transcript as lines: each utterance and key press with its time from the
        first."""
        events = self.timeline()
        t0 = events[0][0] if events else 0.0
        for t, line in events:
            yield f"{t - t0:8.3f} {line}"

    def timeline(self) -> list[tuple[float, str]]:
        """Each utterance and key press with its wall-clock time, in order."""
        events: list[tuple[float, str]] = []
        for u in self.utterances():
            if u.kind in ("modes", "browsing"):
                continue
            flag = " [interrupt]" if u.interrupt and u.kind == "speech" else ""
            events.append((u.t, f"{u.kind}{flag}: {u.text}"))
        for k in self.keys:
            events.append((k.t, f">>> {'type' if k.typed else 'key'} {k.key}"))
        events.sort(key=lambda e: e[0])
        return events
