"""A model of how NVDA and JAWS pass keys to a web page: browse mode and focus mode.

Windows screen readers cannot run here, so their key handling is modelled on what they
document and what their users know (docs/web.md, "Every reader's modes"):

- **The role of the focused element decides the mode** (NVDA's automatic focus mode,
  JAWS's auto forms mode): focus mode on text fields, list boxes and their options,
  combo boxes, spin buttons and anything inside an ``application``; NVDA also on radio
  buttons. Browse mode everywhere else. The mode is decided again each time focus moves.
- **Browse mode**: letters, digits, punctuation and arrows are the reader's own
  navigation keys and never reach the page; Enter and Space *click* the focused element
  (a click with ``detail`` 0, as an accessibility action makes it); Tab reaches the page.
- **Focus mode**: every key reaches the page, except Escape, which the reader takes to
  go back to browse mode (the first Escape after an automatic switch is eaten).

A ``Reader`` wraps a Playwright page and presses keys through those rules; ``taken``
lists the keys the reader kept for itself, so a test can assert that every shortcut and
every decision reached the game.
"""

from __future__ import annotations

from typing import Any

#: The roles on which each reader switches to focus mode by itself.
FOCUS_ROLES = {
    "nvda": frozenset({"textbox", "searchbox", "combobox", "listbox", "option", "spinbutton",
                       "slider", "radio", "application"}),
    "jaws": frozenset({"textbox", "searchbox", "combobox", "listbox", "option", "spinbutton",
                       "slider", "application"}),
}

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
    else if (tag === "button") role = "button";
    else if (tag === "a" && el.hasAttribute("href")) role = "link";
    else if (/^h[1-6]$/.test(tag)) role = "heading";
    else role = "generic";
  }
  if (el.closest("[role=application]")) role = "application";
  if (!window.__readerMark) window.__readerMark = 0;
  if (!el.__readerMark) el.__readerMark = ++window.__readerMark;
  return {role, id: el.__readerMark};
}"""


class Reader:
    """Keys pressed through ``kind``'s ("nvda" or "jaws") browse and focus modes."""

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

    def press(self, key: str) -> bool:
        """Press ``key`` as the reader lets it through; whether the page got it (a click
        for Enter or Space in browse mode counts)."""
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
            # An accessibility click on the focused element; on a focus-mode control the
            # reader switches to focus mode too.
            self.page.evaluate("() => document.activeElement && document.activeElement.click()")
            if role in FOCUS_ROLES[self.kind]:
                self.mode = "focus"
            return True
        self.taken.append((key, role))
        return False
