"""Models of the screen readers that cannot run here: NVDA, JAWS, VoiceOver and TalkBack.

A model is only as good as its sources: each rule below names where it comes from
(docs/web.md, "Every reader's modes", has the table of what each reader sends).

**Keys** (NVDA and JAWS, with a keyboard): a reader in *browse mode* keeps letters,
digits, punctuation and arrows for its own navigation, and turns Enter into its own
action on the object under its cursor; in *focus mode* every key reaches the page except
Escape, which takes the reader back to browse mode.

**Clicks**: what a reader's activation looks like to the page depends on the browser, not
on the reader: Chromium focuses the element, then sends pointerdown, mousedown, pointerup,
mouseup and a click whose ``detail`` is 1 (NVDA's and JAWS's action, TalkBack's
double-tap); WebKit sends a click with ``detail`` 0 and moves no focus (VoiceOver). A
test's ``element.click()`` (detail 0, no focus) is what no reader on Chromium produces.

**What browse mode shows** (NVDA): the children of an ``application`` or a ``dialog`` are
not rendered, and of an interactive list box only the selected option.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: The roles on which a reader switches to focus mode when focus lands there.
#: NVDA: ``BrowseModeTreeInterceptor.shouldPassThrough`` with reason FOCUS, in
#: nvaccess/nvda source/browseMode.py: ALWAYS_SWITCH_TO_PASS_THROUGH_ROLES (combo box,
#: editable text, list, list item, slider, spin button, …) and
#: SWITCH_TO_PASS_THROUGH_ON_FOCUS_ROLES (list item, radio button, tab, menu items); and
#: an ``application``, whose content is outside the browse-mode document (APPLICATION_ROLES;
#: nvdaHelper/vbufBackends/gecko_ia2/gecko_ia2.cpp, ``isEmbeddedApp``).
#: JAWS: auto forms mode on edit fields, combo boxes and list boxes, not on radio buttons
#: (FreedomScientific/standards-support, aria.html; "To go into Forms mode … press Enter
#: in an option (radio) button").
FOCUS_ROLES = {
    "nvda": frozenset({"textbox", "searchbox", "combobox", "listbox", "option", "spinbutton",
                       "slider", "radio", "application"}),
    "jaws": frozenset({"textbox", "searchbox", "combobox", "listbox", "option", "spinbutton",
                       "slider", "application"}),
}

#: Roles whose browse-mode Enter only switches to focus mode, without a click.
#: NVDA: ``_activatePosition`` (source/browseMode.py) focuses an object for which
#: ``shouldPassThrough(obj)`` holds (the ALWAYS roles above) or an application, and
#: clicks (``doAction``) anything else (a button, a link, a radio button).
#: JAWS: Enter on an edit field, a combo box or a list box turns forms mode on.
ENTER_FOCUSES = {
    "nvda": frozenset({"textbox", "searchbox", "combobox", "listbox", "option", "spinbutton",
                       "slider", "application"}),
    "jaws": frozenset({"textbox", "searchbox", "combobox", "listbox", "option", "spinbutton",
                       "slider", "application"}),
}


@dataclass(frozen=True)
class Click:
    """How a reader's activation reaches the page: the click's ``detail`` and whether the
    browser focuses the element first."""

    detail: int
    focuses: bool


#: Chromium: ``AXObject::OnNativeClickAction`` (third_party/blink/renderer/modules/
#: accessibility/ax_object.cc) focuses a focusable element ("to be consistent with
#: EventHandler::HandleMousePressEvent") and calls ``AccessKeyAction(kFromAccessibility)``,
#: whose simulated click has ``setDetail(1)`` (core/events/simulated_event_util.cc). That
#: is NVDA's ``doAction``, JAWS's virtual-cursor Enter and TalkBack's double-tap in Chrome.
#: WebKit: ``AccessibilityObject::press()`` (Source/WebCore/accessibility/
#: AccessibilityObject.cpp) dispatches a simulated click, detail 0, without a focus move:
#: VoiceOver's double-tap (iOS) and VO-Space (macOS) in Safari.
CLICKS = {"nvda": Click(1, True), "jaws": Click(1, True), "talkback": Click(1, True),
          "voiceover": Click(0, False)}

#: A reader's click on an element, as its browser sends it (see :data:`CLICKS`).
CLICK = """([el, how]) => {
  if (how.focuses && el !== document.activeElement && el.tabIndex >= -1
      && !el.closest('[inert]')) el.focus();
  const at = el.getBoundingClientRect();
  const base = {bubbles: true, cancelable: true, composed: true, view: window, button: 0,
                clientX: at.x + at.width / 2, clientY: at.y + at.height / 2};
  for (const type of ["pointerdown", "mousedown", "pointerup", "mouseup"]) {
    const Kind = type.startsWith("pointer") ? PointerEvent : MouseEvent;
    el.dispatchEvent(new Kind(type, {...base, pointerType: "mouse"}));
  }
  el.dispatchEvent(new PointerEvent("click", {...base, detail: how.detail, pointerType: "mouse"}));
}"""

#: The focused element's role, explicit or implicit, and whether it sits in an application.
ROLE = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return {role: "document", id: null};
  const explicit = el.getAttribute("role");
  let role = explicit;
  if (!role) {
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute("type") || "text").toLowerCase();
    if (tag === "input") {
      role = {radio: "radio", checkbox: "checkbox", button: "button", submit: "button",
              range: "slider", number: "spinbutton", search: "searchbox"}[type] || "textbox";
    } else if (tag === "textarea") role = "textbox";
    else if (tag === "select") role = el.multiple ? "listbox" : "combobox";
    else if (tag === "button" || tag === "summary") role = "button";
    else if (tag === "a" && el.hasAttribute("href")) role = "link";
    else if (/^h[1-6]$/.test(tag)) role = "heading";
    else role = "generic";
  }
  if (el.closest("[role=application]")) role = "application";
  if (!window.__readerMark) window.__readerMark = 0;
  if (!el.__readerMark) el.__readerMark = ++window.__readerMark;
  return {role, id: el.__readerMark};
}"""


def click(page: Any, element: Any, kind: str) -> None:
    """``kind``'s reader activates ``element`` (a Playwright element handle or locator)."""
    how = CLICKS[kind]
    handle = element.element_handle() if hasattr(element, "element_handle") else element
    page.evaluate(CLICK, [handle, {"detail": how.detail, "focuses": how.focuses}])


class Reader:
    """Keys pressed through ``kind``'s ("nvda" or "jaws") browse and focus modes, and its
    cursor moved as the reader moves it."""

    def __init__(self, page: Any, kind: str) -> None:
        self.page = page
        self.kind = kind
        self.mode = "browse"
        self._focus: int | None = None
        #: (key, role of the focused element) for every key the reader kept for itself.
        self.taken: list[tuple[str, str]] = []

    def role(self) -> str:
        """The focused element's role; the mode follows it when focus has moved."""
        now = self.page.evaluate(ROLE)
        if now["id"] != self._focus:
            self._focus = now["id"]
            self.mode = "focus" if now["role"] in FOCUS_ROLES[self.kind] else "browse"
        return str(now["role"])

    def cursor_to(self, element: Any) -> None:
        """The reader's cursor moves to ``element`` and focus with it, as JAWS's virtual
        cursor and NVDA's Enter (``_focusLastFocusableObject``, browseMode.py) move it: the
        page sees a focus it did not make. The mode follows the new focus."""
        element.focus()
        self.role()

    def press(self, key: str) -> bool:
        """Press ``key`` as the reader lets it through; whether the page got it (an
        activation in browse mode counts)."""
        role = self.role()
        if self.mode == "focus":
            if key == "Escape":
                self.mode = "browse"
                self.taken.append((key, role))
                return False
            self.page.keyboard.press(key)
            return True
        if key in ("Tab", "Shift+Tab"):
            self.page.keyboard.press(key)
            return True
        if key in ("Enter", " "):
            if role in ENTER_FOCUSES[self.kind]:
                # Focus mode on, no click: the next Enter is a key the page gets.
                self.mode = "focus"
                self.taken.append((key, role))
                return False
            focused = self.page.evaluate_handle("() => document.activeElement")
            click(self.page, focused, self.kind)
            return True
        self.taken.append((key, role))
        return False


#: What NVDA's browse mode shows of the page: the accessibility tree's text in order, an
#: application's or a dialog's name without its content, an interactive list box's
#: selected option alone (gecko_ia2.cpp: ``isEmbeddedApp`` and ``renderSelectedItemOnly``
#: set ``renderChildren = false``). From Chromium's tree (CDP ``Accessibility``).
def browse_text(page: Any, selector: str | None = None) -> list[str]:
    """The lines of the page (or of the element ``selector`` picks) in browse mode."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
        backend = None
        if selector is not None:
            doc = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
            found = cdp.send("DOM.querySelector", {"nodeId": doc, "selector": selector})
            backend = cdp.send("DOM.describeNode", {"nodeId": found["nodeId"]})["node"][
                "backendNodeId"]
    finally:
        cdp.detach()
    by_id = {n["nodeId"]: n for n in nodes}
    root = next(n for n in nodes if (n.get("backendDOMNodeId") == backend if backend
                                     else "parentId" not in n))
    out: list[str] = []

    def prop(node: dict[str, Any], name: str) -> Any:
        return next((p["value"].get("value") for p in node.get("properties", [])
                     if p["name"] == name), None)

    def walk(node: dict[str, Any], top: bool = False) -> None:
        role = node.get("role", {}).get("value", "")
        name = str(node.get("name", {}).get("value", ""))
        kids = [by_id[c] for c in node.get("childIds", []) if c in by_id]
        if node.get("ignored"):
            for kid in kids:
                walk(kid)
            return
        if role in ("application", "dialog") and not top:
            if name:
                out.append(name)
            return
        if role == "listbox":
            chosen = [k for k in kids if prop(k, "selected")]
            out.extend(str(k.get("name", {}).get("value", "")) for k in chosen[:1])
            return
        if role == "StaticText":
            out.append(name)
            return
        for kid in kids:
            walk(kid)

    walk(root, top=True)
    return [line for line in out if line.strip()]


class TouchReader:
    """A phone's screen reader (``kind`` "voiceover" or "talkback"): a swipe moves the
    reader's own cursor, never the page's focus (VoiceOver's and TalkBack's accessibility
    focus is not DOM focus); a double-tap activates what the cursor is on, as the
    browser's accessibility click (:data:`CLICKS`). It hears the name of what it is on."""

    def __init__(self, page: Any, kind: str) -> None:
        self.page = page
        self.kind = kind
        self.on: Any = None

    def swipe_to(self, element: Any) -> str:
        """Move the cursor to ``element``; what the reader says of it (its name)."""
        self.on = element
        return str(self.page.evaluate(
            "el => el.getAttribute('aria-label') || el.textContent.trim()",
            element.element_handle() if hasattr(element, "element_handle") else element))

    def double_tap(self) -> None:
        assert self.on is not None, "nothing under the cursor"
        click(self.page, self.on, self.kind)
