"""The terminal client's own words, in English, Serbian and Czech.

Every sentence *about the game* comes from :mod:`nimmt.narrate` (locally) or
from the server (online), so the terminal and the web client say the same
thing. What is left to a client are its interface labels: prompts, help, the
words of its panels, connection troubles, and how to act on a refusal in
the terminal ("Add a bot with /bot."); the server says the refusal itself,
the table notices and the chat lines in the player's language.

A label missing in a language falls back to English, so a new label never
breaks a translation; the tests check that all three are complete.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LABELS", "Labels"]

_EN: dict[str, str] = {
    # prompts, the plain mode
    "prompt.card": "Your card: ",
    "prompt.row": "Your row: ",
    "prompt.draft": "Your pick: ",
    "prompt.open": "Command: ",
    "nothing_asked": "Nothing is asked of you now.",
    "unknown_key": "Unknown key “{key}”. Type ? and Enter for the list of keys.",
    "unknown_command": "Unknown command “{command}”. Type ? and Enter for the list of keys.",
    "not_a_card": "“{text}” is not a card: type a number from 1 to 104.",
    "not_a_row": "Rows are numbered 1 to 4.",
    "no_row": "Row {row} is not on the table yet.",
    "no_game": "The game has not started yet.",
    "keys_off": "Single-key shortcuts are off; type the commands, such as /scores.",
    "bye": "Goodbye.",
    "mode.plain": "6 nimmt! in plain mode: one line per event. Type ? and Enter for help.",
    "no_textual": "The full-screen face needs Textual, which this install lacks; "
                  "playing in plain mode. For the full screen: {command}",
    # help: every key and command
    "help.title": "Keys and commands (type one and press Enter):",
    "help.number": "a card number: play that card (you may change it until the reveal); "
                   "for a row choice, the row number",
    "help.enter": "Enter alone: the question again",
    "help.typed": "{rows} and a row's number (for example {rows}2): that row; "
                  "{bullheads} and a card (for example {bullheads} 55): its bullheads; "
                  "/repeat: the last announcement again",
    "help.hand": "/hand: your hand",
    "help.say": "/say TEXT, or ' and TEXT: chat with the table",
    "help.table": "/start, /bot STRENGTH, /sit, /rematch, /leave: the table "
                  "(start, bots and rematch are for the host); /invite NAME, and "
                  "/accept or /decline an invitation",
    "help.quit": "/quit: close the client (online, your seat waits for you: rejoin with --join)",
    "help.textual": "Arrow keys and Enter in the hand and the rows; Tab moves between panels; "
                    "the command line at the bottom takes everything the plain mode does.",
    # the table, the results
    "rows": "Rows",
    "hand": "Your hand",
    "pool": "Face-up cards to draft",
    "players": "Players",
    "log": "Game log",
    "command": "Command: a card, a key, /say and a message",
    "row.label": "Row {row}",
    "seat.you": "{name} (you)",
    "seat.bot": "{name} (bot)",
    "seat.empty": "Seat {seat}: empty",
    "player.chosen": "has chosen",
    "player.choosing": "not yet",
    "player.out": "out",
    "player.auto": "the default bot plays",
    "player.away": "disconnected",
    "status.round": "Round {round}, turn {turn}.",
    "status.open": "Waiting for players.",
    "status.over": "The game is over.",
    "status.spectating": "You are watching.",
    "rowdlg.choose": "Choose the row for your {card}.",
    "results.title": "Results",
    "results.line": "{place}. {name}: {points}",
    "results.winners": "Winners: {names}.",
    "results.winner": "Winner: {names}.",
    "results.again": "Type /rematch for another game, or /quit.",
    "results.again_guest": "The host may start another game; /quit leaves.",
    "results.rematch": "Play again",
    "results.quit": "Quit",
    "record.saved": "The game record is saved in {path}.",
    # online
    "online.connecting": "Connecting to {url}…",
    "online.hello": "Connected as {name}.",
    "online.table": "Table {code}. Others join with: nimmt play {url} --join {code} "
                    "(in a browser: {url}/play/#/table/{code}).",
    "online.wait_host": "When every seat is taken, type /start. /bot STRENGTH adds a bot.",
    "online.wait_guest": "Waiting for the host to start the game.",
    "online.spectating": "You are watching table {code}.",
    "online.unreachable": "No nimmt server answers at {url}.",
    "online.lost": "Connection lost.",
    "online.retrying": "Reconnecting (attempt {attempt})…",
    "online.back": "Reconnected.",
    "online.older": "What happened before is left out; here are the latest moves.",
    "online.gone": "The server cannot be reached. The game goes on there: "
                   "rejoin with nimmt play {url} --join {code}.",
    "online.gone_lobby": "The server cannot be reached.",
    "online.table_gone": "The table {code} is closed.",
    "online.local_only": "That works only at a table on a server.",
    "online.sent": "Done.",
    "online.invitation_how": "Type /accept to join that table, or /decline.",
    "online.no_invitation": "No invitation is waiting for you.",
    "online.invited": "Invitation sent to {name}.",
    "online.password": "Password for {name}: ",
    "error.other": "The server refused that: {message}",
    "hint.unavailable": "Hints need the search (pip install 'nimmt[fast]').",
    "how.name_taken": "Give another name with --name; if the name is yours, add --sign-in.",
    "how.signed_out": "Sign in again with --sign-in.",
    "how.sign_in_failed": "Check the name, and the password (typed, or in NIMMT_PASSWORD).",
    "how.seats_empty": "Add a bot with /bot.",
    "how.bad_bot": "The bots are easy, medium, hard and expert.",
    "how.table_full": "You are watching.",
}

_SR: dict[str, str] = {
    "prompt.card": "Vaša karta: ",
    "prompt.row": "Vaš skup: ",
    "prompt.draft": "Vaš izbor: ",
    "prompt.open": "Komanda: ",
    "nothing_asked": "Sada se od vas ništa ne traži.",
    "unknown_key": "Nepoznat taster „{key}”. Otkucajte ? i Enter za spisak tastera.",
    "unknown_command": "Nepoznata komanda „{command}”. Otkucajte ? i Enter za spisak tastera.",
    "not_a_card": "„{text}” nije karta: otkucajte broj od 1 do 104.",
    "not_a_row": "Skupovi su označeni brojevima od 1 do 4.",
    "no_row": "Skup {row} još nije na stolu.",
    "no_game": "Igra još nije počela.",
    "keys_off": "Prečice od jednog tastera su isključene; kucajte komande, na primer /scores.",
    "bye": "Doviđenja.",
    "mode.plain": "6 uzimanja u jednostavnom režimu: jedan red po događaju. "
                  "Otkucajte ? i Enter za pomoć.",
    "no_textual": "Prikaz preko celog ekrana traži Textual, kog ova instalacija nema; "
                  "igra se u jednostavnom režimu. Za ceo ekran: {command}",
    "help.title": "Tasteri i komande (otkucajte jedan i pritisnite Enter):",
    "help.number": "broj karte: igra tu kartu (možete je promeniti do otkrivanja); "
                   "kada birate skup, broj skupa",
    "help.enter": "samo Enter: ponovo pitanje",
    "help.typed": "{rows} i broj skupa (na primer {rows}2): taj skup; "
                  "{bullheads} i karta (na primer {bullheads} 55): bodovi te karte; "
                  "/repeat: ponavlja poslednje obaveštenje",
    "help.hand": "/hand: vaša ruka",
    "help.say": "/say TEKST, ili ' i TEKST: ćaskanje sa stolom",
    "help.table": "/start, /bot JAČINA, /sit, /rematch, /leave: sto "
                  "(početak, botovi i nova igra su za domaćina); /invite IME, a "
                  "/accept ili /decline odgovara na poziv",
    "help.quit": "/quit: zatvara program (na serveru vaše mesto čeka: vratite se sa --join)",
    "help.textual": "Strelice i Enter u ruci i u skupovima; Tab prelazi između panela; "
                    "komandna linija na dnu prima sve što i jednostavni režim.",
    "rows": "Skupovi",
    "hand": "Vaša ruka",
    "pool": "Otvorene karte za biranje",
    "players": "Igrači",
    "log": "Tok igre",
    "command": "Komanda: karta, taster, /say i poruka",
    "row.label": "Skup {row}",
    "seat.you": "{name} (vi)",
    "seat.bot": "{name} (bot)",
    "seat.empty": "Mesto {seat}: prazno",
    "player.chosen": "izabrao je",
    "player.choosing": "još nije",
    "player.out": "ispao",
    "player.auto": "igra podrazumevani bot",
    "player.away": "nije povezan",
    "status.round": "Runda {round}, potez {turn}.",
    "status.open": "Čeka se na igrače.",
    "status.over": "Igra je završena.",
    "status.spectating": "Posmatrate igru.",
    "rowdlg.choose": "Izaberite skup za svoju kartu {card}.",
    "results.title": "Rezultati",
    "results.line": "{place}. {name}: {points}",
    "results.winners": "Pobednici: {names}.",
    "results.winner": "Pobednik: {names}.",
    "results.again": "Otkucajte /rematch za novu igru ili /quit.",
    "results.again_guest": "Domaćin može da započne novu igru; /quit izlazi.",
    "results.rematch": "Igraj ponovo",
    "results.quit": "Izađi",
    "record.saved": "Zapis igre je sačuvan u {path}.",
    "online.connecting": "Povezivanje sa {url}…",
    "online.hello": "Povezani ste kao {name}.",
    "online.table": "Sto {code}. Drugi se pridružuju sa: nimmt play {url} --join {code} "
                    "(u pregledaču: {url}/play/#/table/{code}).",
    "online.wait_host": "Kada sva mesta budu zauzeta, otkucajte /start. /bot JAČINA dodaje bota.",
    "online.wait_guest": "Čeka se da domaćin započne igru.",
    "online.spectating": "Posmatrate sto {code}.",
    "online.unreachable": "Nijedan nimmt server ne odgovara na {url}.",
    "online.lost": "Veza je prekinuta.",
    "online.retrying": "Ponovno povezivanje (pokušaj {attempt})…",
    "online.back": "Veza je ponovo uspostavljena.",
    "online.older": "Ranije poteze preskačemo; evo poslednjih.",
    "online.gone": "Server nije dostupan. Igra se tamo nastavlja: "
                   "vratite se sa nimmt play {url} --join {code}.",
    "online.gone_lobby": "Server nije dostupan.",
    "online.table_gone": "Sto {code} je zatvoren.",
    "online.local_only": "To radi samo za stolom na serveru.",
    "online.sent": "Urađeno.",
    "online.invitation_how": "Upišite /accept da sednete za taj sto, ili /decline.",
    "online.no_invitation": "Nijedan poziv vas ne čeka.",
    "online.invited": "Poziv je poslat igraču {name}.",
    "online.password": "Lozinka za {name}: ",
    "hint.unavailable": "Za savete je potrebna pretraga (pip install 'nimmt[fast]').",
    "how.name_taken": "Zadajte drugo ime opcijom --name; ako je ime vaše, dodajte --sign-in.",
    "how.signed_out": "Ponovo se prijavite opcijom --sign-in.",
    "how.sign_in_failed": "Proverite ime i lozinku (otkucanu ili u NIMMT_PASSWORD).",
    "how.seats_empty": "Dodajte bota komandom /bot.",
    "how.bad_bot": "Botovi su easy, medium, hard i expert.",
    "how.table_full": "Pratite igru.",
    "error.other": "Server je to odbio: {message}",
}

_CS: dict[str, str] = {
    "prompt.card": "Vaše karta: ",
    "prompt.row": "Vaše řada: ",
    "prompt.draft": "Váš výběr: ",
    "prompt.open": "Příkaz: ",
    "nothing_asked": "Teď se od vás nic nežádá.",
    "unknown_key": "Neznámá klávesa „{key}“. Napište ? a Enter pro seznam kláves.",
    "unknown_command": "Neznámý příkaz „{command}“. Napište ? a Enter pro seznam kláves.",
    "not_a_card": "„{text}“ není karta: napište číslo od 1 do 104.",
    "not_a_row": "Řady jsou očíslované 1 až 4.",
    "no_row": "Řada {row} ještě není na stole.",
    "no_game": "Hra ještě nezačala.",
    "keys_off": "Jednoklávesové zkratky jsou vypnuté; pište příkazy, například /scores.",
    "bye": "Na shledanou.",
    "mode.plain": "6 bere v jednoduchém režimu: jeden řádek na událost. "
                  "Napište ? a Enter pro nápovědu.",
    "no_textual": "Celoobrazovkové rozhraní potřebuje Textual, který tato instalace nemá; "
                  "hraje se v jednoduchém režimu. Pro celou obrazovku: {command}",
    "help.title": "Klávesy a příkazy (napište jeden a stiskněte Enter):",
    "help.number": "číslo karty: zahraje tu kartu (do odkrytí ji můžete změnit); "
                   "při výběru řady číslo řady",
    "help.enter": "samotný Enter: otázka znovu",
    "help.typed": "{rows} a číslo řady (například {rows}2): ta řada; "
                  "{bullheads} a karta (například {bullheads} 55): body té karty; "
                  "/repeat: zopakuje poslední oznámení",
    "help.hand": "/hand: vaše karty",
    "help.say": "/say TEXT, nebo ' a TEXT: chat se stolem",
    "help.table": "/start, /bot SÍLA, /sit, /rematch, /leave: stůl "
                  "(začátek, roboty a novou hru ovládá hostitel); /invite JMÉNO, a "
                  "/accept nebo /decline odpoví na pozvánku",
    "help.quit": "/quit: zavře program (na serveru na vás místo počká: vraťte se s --join)",
    "help.textual": "Šipky a Enter v kartách a v řadách; Tab přechází mezi panely; "
                    "příkazový řádek dole přijme vše co jednoduchý režim.",
    "rows": "Řady",
    "hand": "Vaše karty",
    "pool": "Odkryté karty k výběru",
    "players": "Hráči",
    "log": "Průběh hry",
    "command": "Příkaz: karta, klávesa, /say a zpráva",
    "row.label": "Řada {row}",
    "seat.you": "{name} (vy)",
    "seat.bot": "{name} (robot)",
    "seat.empty": "Místo {seat}: volné",
    "player.chosen": "vybral",
    "player.choosing": "ještě ne",
    "player.out": "vyřazen",
    "player.auto": "hraje výchozí robot",
    "player.away": "odpojen",
    "status.round": "Kolo {round}, tah {turn}.",
    "status.open": "Čeká se na hráče.",
    "status.over": "Hra skončila.",
    "status.spectating": "Díváte se.",
    "rowdlg.choose": "Vyberte řadu pro svou kartu {card}.",
    "results.title": "Výsledky",
    "results.line": "{place}. {name}: {points}",
    "results.winners": "Vítězové: {names}.",
    "results.winner": "Vítěz: {names}.",
    "results.again": "Napište /rematch pro další hru, nebo /quit.",
    "results.again_guest": "Hostitel může začít další hru; /quit odejde.",
    "results.rematch": "Hrát znovu",
    "results.quit": "Konec",
    "record.saved": "Záznam hry je uložen v {path}.",
    "online.connecting": "Připojování k {url}…",
    "online.hello": "Připojeno jako {name}.",
    "online.table": "Stůl {code}. Ostatní se připojí příkazem: nimmt play {url} --join {code} "
                    "(v prohlížeči: {url}/play/#/table/{code}).",
    "online.wait_host": "Až budou všechna místa obsazená, napište /start. /bot SÍLA přidá robota.",
    "online.wait_guest": "Čeká se, až hostitel začne hru.",
    "online.spectating": "Díváte se na stůl {code}.",
    "online.unreachable": "Na adrese {url} neodpovídá žádný server nimmt.",
    "online.lost": "Spojení ztraceno.",
    "online.retrying": "Připojuji znovu (pokus {attempt})…",
    "online.back": "Znovu připojeno.",
    "online.older": "Co se stalo dřív, vynecháváme; tady jsou poslední tahy.",
    "online.gone": "Server není dostupný. Hra tam pokračuje: "
                   "vraťte se příkazem nimmt play {url} --join {code}.",
    "online.gone_lobby": "Server není dostupný.",
    "online.table_gone": "Stůl {code} je zavřený.",
    "online.local_only": "To jde jen u stolu na serveru.",
    "online.sent": "Hotovo.",
    "online.invitation_how": "Napište /accept a přisednete k tomu stolu, nebo /decline.",
    "online.no_invitation": "Žádná pozvánka na vás nečeká.",
    "online.invited": "Pozvánka odeslána hráči {name}.",
    "online.password": "Heslo pro {name}: ",
    "hint.unavailable": "Rady potřebují prohledávání (pip install 'nimmt[fast]').",
    "how.name_taken": "Zadejte jiné jméno volbou --name; pokud je jméno vaše, přidejte "
                      "--sign-in.",
    "how.signed_out": "Znovu se přihlaste volbou --sign-in.",
    "how.sign_in_failed": "Zkontrolujte jméno a heslo (napsané, nebo v NIMMT_PASSWORD).",
    "how.seats_empty": "Přidejte robota příkazem /bot.",
    "how.bad_bot": "Roboti jsou easy, medium, hard a expert.",
    "how.table_full": "Hru sledujete.",
    "error.other": "Server to odmítl: {message}",
}

#: The catalogs by language.
LABELS: dict[str, dict[str, str]] = {"en": _EN, "sr": _SR, "cs": _CS}


class Labels:
    """The labels of one language; :meth:`__call__` fills a label's fields."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LABELS else "en"
        self._table = LABELS[self.lang]

    def has(self, key: str) -> bool:
        return key in _EN

    def __call__(self, label: str, **fields: Any) -> str:
        text = self._table.get(label) or _EN[label]
        return text.format(**fields) if fields else text
