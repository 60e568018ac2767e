"""A screen reader's click, as the real browser makes it: AT-SPI's action on an element.

NVDA's and JAWS's Enter in browse mode and TalkBack's double-tap ask the browser to do
an element's default action; Chromium turns it into a focus and a click (readers.py
names the source). Here that path is taken for real: on the desktop's accessibility bus
(:class:`.orca.Desktop`), the element is found by its role and name in Chromium's tree and
its "click" action is done, by the system's Python with ``pyatspi`` (Orca's own library),
as Orca or any AT-SPI client would.
"""

from __future__ import annotations

import json
import subprocess

from .orca import SLOW, Desktop

#: Find the accessible of ``role`` (AT-SPI's role name: "list item", "radio button") named
#: ``name`` in the browser's tree and do its click action; print what it did.
SCRIPT = r"""
import json, sys, time
import pyatspi

role, name = sys.argv[1], sys.argv[2]
deadline = time.monotonic() + float(sys.argv[3])

def find():
    desktop = pyatspi.Registry.getDesktop(0)
    for app in desktop:
        if app is None or "chrom" not in (app.name or "").lower():
            continue
        hit = pyatspi.utils.findDescendant(
            app, lambda a: a is not None and a.getRoleName() == role and a.name == name)
        if hit is not None:
            return hit
    return None

found = None
while found is None and time.monotonic() < deadline:
    found = find()
    if found is None:
        time.sleep(0.2)
if found is None:
    print(json.dumps({"error": f"no {role} named {name!r}"}))
    sys.exit(1)
action = found.queryAction()
names = [action.getName(i) for i in range(action.nActions)]
index = next((i for i, n in enumerate(names) if n in ("click", "press", "activate")), 0)
done = action.doAction(index)
print(json.dumps({"actions": names, "did": names[index] if names else None, "ok": bool(done)}))
"""


def click(d: Desktop, role: str, name: str, timeout: float = SLOW) -> dict[str, object]:
    """Do the click action of the element of ``role`` named ``name`` through AT-SPI."""
    done = subprocess.run(["/usr/bin/python3", "-c", SCRIPT, role, name, str(timeout)],
                          env=d.env, capture_output=True, text=True, timeout=timeout + 60)
    out = done.stdout.strip().splitlines()
    result: dict[str, object] = json.loads(out[-1]) if out else {"error": done.stderr}
    assert done.returncode == 0 and result.get("ok"), (result, done.stderr[-2000:])
    return result
