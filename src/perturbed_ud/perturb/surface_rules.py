"""Language rules that keep a nonce sentence well-formed around its new words.

A new content word can change what its neighbours must look like: English *a*/*an*, French
elision (*le héros* / *l'arbre*, *de* / *d'*, *ce* / *cet*, *ma* / *mon*) and the contractions
it undoes or creates (*du* ↔ *de l'*), Russian *о* / *об*, the Arabic article after the
clitic *li-*. Each rule fires only next to a replaced word, so the original text is never
"corrected". Capitalisation follows the replaced word; Arabic words are compared and inserted
without diacritics (short vowels, shadda, sukun: the marks pyarabic's ``strip_diacritics``
removes).

Multiword tokens: a token whose words are unchanged keeps its form; French *de*/*à* + *le*/
*les* are recomposed (*du au des aux*) or split (*de l'*) when elision changes the article; a
token with a replaced word is re-spelled by concatenation, which `can_respell` allows only
where the other words are clitics (Arabic, English *'s*). A content word in any other
multiword token is not replaced (``in_multiword_token``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable

from ..lexicons import english_article_exceptions, french_no_elision
from ..registry import RULE_SETS
from ..resources.citation import (
    BOUND,
    after_li,
    before_suffix,
    citation_form,
    strip_arabic_diacritics,
)
from ..ud.columns import SentenceColumns, space_after
from ..ud.conllu_io import parse_feats

APOSTROPHES = ("'", "’", "‘")  # ‘ as typed for ’ in some treebanks (PUD: l‘)
# Languages whose multiword tokens are a host plus clitics written together.
CLITIC_SPELLING = {"ar", "he"}
# MISC attributes that describe a word's old form or lemma, dropped when the form changes.
FORM_MISC = {"wordform", "CorrectForm", "CorrectSpaceAfter", "Translit", "LTranslit", "Gloss",
             "LGloss", "LId", "Vform", "Lform", "MSeg", "MGloss"}  # fmt: skip


def like_case(original: str, new: str) -> str:
    """The new word with the original's capitalisation: ALL CAPS, Capitalised, or as is. A
    new word that starts with the original's letter keeps its capital as written (Turkish
    *İzledi*: "i".upper() is dotless I)."""
    if sum(c.isalpha() for c in original) > 1 and original.isupper():
        return new.upper()
    if original[:1].isupper():
        first = original[:1] if original[:1].lower()[:1] == new[:1] else new[:1].upper()
        return first + new[1:]
    return new


def all_caps(word: str) -> bool:
    """An acronym or a shouted word: two letters or more, all capitals."""
    return sum(c.isalpha() for c in word) > 1 and word.isupper()


def target_case(cols: SentenceColumns, i: int, new: str) -> str:
    """The replacement of word ``i`` with the capitals that belong to the position, not to
    the replaced word: ALL CAPS only in a shouted sentence (an acronym passes none on:
    *WLAN* -> *Problem*, *США* -> *Пулов* only sentence-initially), Capitalised as the
    original was."""
    original = cols.forms[i]
    if not all_caps(original):
        return like_case(original, new)
    words = [f for f in cols.forms if sum(c.isalpha() for c in f) > 1]
    if len(words) >= 3 and 2 * sum(map(all_caps, words)) > len(words):
        return new.upper()
    return new[:1].upper() + new[1:] if i == sentence_start(cols) else new


def sentence_start(cols: SentenceColumns) -> int:
    """The index of the first word that is not punctuation (0 if there is none)."""
    return next((k for k, upos in enumerate(cols.upos) if upos != "PUNCT"), 0)


def ending_class(form: str) -> str | None:
    """German adjective ending: -e, -em, -en, -er or -es (None for any other ending)."""
    if form.endswith("e"):
        return "e"
    if form[-2:] in ("em", "en", "er", "es"):
        return form[-2:]
    return None


def zu_infinitive(form: str, lemma: str) -> bool:
    """German: an infinitive with *zu* written inside it (*einzuhalten* of *einhalten*)."""
    form, lemma = form.casefold(), lemma.casefold()
    return len(form) == len(lemma) + 2 and any(
        form[k : k + 2] == "zu" and form[:k] + form[k + 2 :] == lemma for k in range(1, len(lemma))
    )


def form_condition(lang: str, cols: SentenceColumns, i: int) -> Callable[[str, str], bool]:
    """Which inflected forms ``(lemma, form)`` may replace word ``i``: a visibly different
    word; for a German adjective one with the same ending (strong and weak endings share
    FEATS); for a German infinitive one with *zu* inside exactly when the original has it
    (*einzuhalten* and *verbessern* share FEATS; GSD's XPOS VVIZU also marks it where the
    lemma keeps the *zu*); for an Arabic word one with the article exactly when the original
    has it (UD's Definite=Def covers nouns with and without al-), and a host spelling
    (`BOUND`) only where a suffix follows; for an English adverb one in *-ly* exactly when
    the original is."""
    original = cols.forms[i]
    folded = original.casefold()
    if lang == "de" and cols.upos[i] == "ADJ" and (ending := ending_class(original)):
        return lambda _, form: form.casefold() != folded and ending_class(form) == ending
    if lang == "de" and cols.upos[i] == "VERB" and "VerbForm=Inf" in cols.feats[i]:
        zu = cols.xpos[i] == "VVIZU" or zu_infinitive(original, cols.lemmas[i])
        return lambda lemma, form: form.casefold() != folded and zu_infinitive(form, lemma) == zu
    if lang == "ar":
        entry = citation_form(lang, cols, i)
        article, host = entry.startswith("ال"), entry.endswith(BOUND)
        tanwin = _tanwin_alif(cols, i)
        return lambda _, form: (
            form.removesuffix(BOUND) != original
            and form.startswith("ال") == article
            and (host or not form.endswith(BOUND))
            and (not tanwin or form.endswith(_ALIF_NOT_WRITTEN + ("ا",)))
        )
    if lang == "en" and cols.upos[i] == "ADV":
        ly = folded.endswith("ly")  # *deeply* is not *deep*: a flat adverb has its own slots
        return lambda _, form: form.casefold() != folded and form.casefold().endswith("ly") == ly
    return lambda _, form: form.casefold() != folded


# Endings after which the accusative tanwin takes no alif (*فائدةً*, *مستشفىً*, *سماءً*).
_ALIF_NOT_WRITTEN = ("ة", "ى", "ء")


def _tanwin_alif(cols: SentenceColumns, i: int) -> bool:
    """Whether word ``i`` is an indefinite accusative written with the alif of its tanwin
    (*عقداً*): its replacement must be one too, not a bare *إنتاج* in *كانوا إنتاج*."""
    feats = cols.feats[i]
    form = strip_arabic_diacritics(cols.forms[i])
    lemma = strip_arabic_diacritics(cols.lemmas[i])
    return (
        "Case=Acc" in feats and "Definite=Ind" in feats
        and form.endswith("ا") and not lemma.endswith("ا")
    )  # fmt: skip


def can_respell(lang: str, cols: SentenceColumns, first: int, last: int, i: int) -> bool:
    """Whether word ``i`` of the multiword token ``first..last`` may be replaced: the token is
    its words written together, and the others are clitics (Arabic, Hebrew) or apostrophe
    clitics after the replaced host (English *Bush's*)."""
    token = next(t for a, b, t in cols.mwt_spans() if a == first and b == last)
    spelled = "".join(cols.forms[first : last + 1])
    if token["form"].casefold() != spelled.casefold():
        return False
    if lang in CLITIC_SPELLING:
        return True
    return i == first and all(
        cols.forms[j].startswith(APOSTROPHES) for j in range(first + 1, last + 1)
    )


# --- MISC -----------------------------------------------------------------------------------


def set_space_after(misc: str, space: bool) -> str:
    items = [item for item in misc.split("|") if item not in ("_", "SpaceAfter=No")]
    if not space:
        items.append("SpaceAfter=No")
        items.sort(key=lambda item: item.split("=")[0].lower())
    return "|".join(items) or "_"


def drop_form_misc(misc: str) -> str:
    items = [item for item in misc.split("|") if item.split("=")[0] not in FORM_MISC]
    return "|".join(item for item in items if item != "_") or "_"


# --- English ---------------------------------------------------------------------------------

_LETTER_AN = set("aefhilmnorsx")  # letters whose name starts with a vowel sound: "an FBI"


def english_article(word: str) -> str:
    """'a' or 'an' before ``word``, by its first sound: a lexicon of exceptions to the
    spelling (``a university``, ``an hour``), acronyms read letter by letter, numerals."""
    w = word.lstrip("\"'‘“(").casefold()
    if not w:
        return "a"
    exceptions = english_article_exceptions()
    if w in exceptions:
        return exceptions[w]
    stem = w.split("-")[0]
    if stem in exceptions:
        return exceptions[stem]
    if w[0].isdigit():
        number = re.match(r"\d+", w).group()
        return "an" if number[0] == "8" or number in ("11", "18") else "a"
    bare = word.lstrip("\"'‘“(")
    if bare.isalpha() and bare.isupper() and _initialism(bare):
        return "an" if w[0] in _LETTER_AN else "a"  # read letter by letter: "an FBI agent"
    return "an" if w[0] in "aeiou" else "a"


def _initialism(word: str) -> bool:
    """Capitals read letter by letter: up to three letters, or up to five without a vowel
    (HTML); NASA and NATO are read as words."""
    return 1 < len(word) <= 3 or (len(word) <= 5 and not set(word) & set("AEIOUY"))


@RULE_SETS.register("nonce.spud.surface.en.v2", short="en")
def english_rules(cols: SentenceColumns, replaced: list[bool], counts: Counter) -> None:
    """a/an before a replaced word; the possessive after a replaced possessor."""
    for i, form in enumerate(cols.forms):
        if form.lower() not in ("a", "an") or cols.upos[i] != "DET":
            continue
        j = next((k for k in range(i + 1, len(cols)) if cols.upos[k] != "PUNCT"), None)
        if j is None or not replaced[j]:
            continue
        article = english_article(cols.forms[j])
        if article != form.lower():
            _set_form(cols, i, like_case(form, article))
            counts["a_an"] += 1
    _english_possessives(cols, replaced, counts)


def _english_possessives(cols: SentenceColumns, replaced: list[bool], counts: Counter) -> None:
    """A bare apostrophe after a plural in -s (*parents'*), 's after any other possessor
    (*children's*, *dog's*): a replaced possessor may change which one it takes."""
    for i, form in enumerate(cols.forms):
        owner = cols.heads[i] - 1
        if cols.upos[i] != "PART" or form not in (*APOSTROPHES, *(a + "s" for a in APOSTROPHES)):
            continue
        if owner < 0 or owner >= i or not replaced[owner]:
            continue
        bare = "Number=Plur" in cols.feats[owner] and cols.forms[owner].lower().endswith("s")
        want = form[0] if bare else form[0] + "s"
        if want != form:
            _set_form(cols, i, want)
            counts["possessive"] += 1


# --- French ----------------------------------------------------------------------------------

_ELIDED = {"le": "l", "la": "l", "de": "d", "que": "qu", "ne": "n", "se": "s", "me": "m",
           "te": "t", "je": "j"}  # fmt: skip
# l' is le or la by gender (None)
_UNELIDED = {"l": None, "d": "de", "qu": "que", "n": "ne", "s": "se", "m": "me", "t": "te",
             "j": "je"}  # fmt: skip
_FUNCTION_UPOS = {"DET", "ADP", "PRON", "SCONJ", "ADV", "PART"}
_CONTRACTIONS = {("de", "le"): "du", ("à", "le"): "au", ("de", "les"): "des", ("à", "les"): "aux"}


def french_vowel_initial(form: str, lemma: str = "") -> bool:
    """Whether French elides before this word: a vowel (accented or not), a mute h, or a y
    before a consonant (Yves); not an h aspiré or another listed word (onze, oui)."""
    word = form.lstrip('"«“‘( ').lower()
    if not word:
        return False
    blocked = french_no_elision()
    if {word, word.split("-")[0], lemma.lower()} & blocked:
        return False  # le héros, le Haut-Rhin
    first = unicodedata.normalize("NFD", word[0])[0]
    if word[0] in "œæ" or first in "aeiou":
        return True
    if first == "h":
        return True
    if first == "y":
        second = unicodedata.normalize("NFD", word[1:2] or "a")[0]
        return second not in "aeiouy"
    return False


def _gender(cols: SentenceColumns, i: int) -> str | None:
    """The word's own Gender, else for an article its noun's."""
    gender = parse_feats(cols.feats[i]).get("Gender")
    if gender is None and cols.upos[i] == "DET" and cols.heads[i]:
        gender = parse_feats(cols.feats[cols.heads[i] - 1]).get("Gender")
    return gender


def _french(cols: SentenceColumns, replaced: list[bool], counts: Counter) -> set[int]:
    """Elision and its reverse, ce/cet and ma/mon before a replaced word; returns the
    indices whose article changed, for the contractions."""
    apostrophe = "’" if "’" in cols.text else "'"
    changed = set()
    for i in range(len(cols) - 1):
        if not replaced[i + 1] or cols.upos[i] not in _FUNCTION_UPOS:
            continue
        form = cols.forms[i]
        low = form.lower()
        vowel = french_vowel_initial(cols.forms[i + 1], cols.lemmas[i + 1])
        if vowel and low in _ELIDED:
            _set_form(cols, i, like_case(form, _ELIDED[low] + apostrophe))
            cols.misc[i] = set_space_after(cols.misc[i], False)
            counts["elision"] += 1
            changed.add(i)
        elif not vowel and low.endswith(APOSTROPHES) and low[:-1] in _UNELIDED:
            full = _UNELIDED[low[:-1]] or ("la" if _gender(cols, i) == "Fem" else "le")
            _set_form(cols, i, like_case(form, full))
            cols.misc[i] = set_space_after(cols.misc[i], True)
            counts["elision_undone"] += 1
            changed.add(i)
        elif cols.upos[i] == "DET" and low in ("ce", "cet"):
            want = "cet" if vowel else "ce"
            if want != low and _gender(cols, i) != "Fem":
                _set_form(cols, i, like_case(form, want))
                counts["ce_cet"] += 1
        elif cols.upos[i] == "DET" and low in ("ma", "ta", "sa", "mon", "ton", "son"):
            feats = parse_feats(cols.feats[cols.heads[i] - 1]) if cols.heads[i] else {}
            if feats.get("Gender") == "Fem" and feats.get("Number", "Sing") == "Sing":
                want = low[0] + ("on" if vowel else "a")
                if want != low:
                    _set_form(cols, i, like_case(form, want))
                    counts["possessive"] += 1
    return changed


def _french_contractions(cols: SentenceColumns, changed: set[int], counts: Counter) -> None:
    """de/à + le/les as one token (du, au, des, aux) unless the article is elided (de l')."""
    spans = {(a, b): token for a, b, token in cols.mwt_spans()}
    for i in sorted(changed):
        if i == 0 or cols.upos[i] != "DET" or cols.upos[i - 1] != "ADP":
            continue
        pair = (cols.forms[i - 1].lower(), cols.forms[i].lower())
        token = spans.get((i - 1, i))
        if token is not None and pair[1].endswith(APOSTROPHES):
            cols.multiword_tokens.remove(token)  # du, au -> de l', à l'
            cols.forms[i - 1] = like_case(token["form"], cols.forms[i - 1])
            counts["contraction_split"] += 1
        elif token is None and pair in _CONTRACTIONS:
            form = like_case(cols.forms[i - 1], _CONTRACTIONS[pair])
            line = {k: "_" for k in ("lemma", "upos", "xpos", "feats", "head", "deprel", "deps")}
            line |= {"id": f"{i}-{i + 1}", "form": form, "misc": _layout_misc(cols.misc[i])}
            cols.multiword_tokens.append(line)
            cols.multiword_tokens.sort(key=lambda t: int(t["id"].split("-")[0]))
            counts["contraction_made"] += 1


def _layout_misc(misc: str) -> str:
    return "|".join(item for item in misc.split("|") if item.startswith("Space")) or "_"


# --- Russian, Arabic -------------------------------------------------------------------------

_RUSSIAN_VOWELS = set("аоуэиы")


# Russian prepositions with a vowel variant, and when the next word asks for it: об before a
# vowel; со, во before a cluster that starts like the preposition (со словарём, во власти).
_RUSSIAN_VARIANTS = {"о": "об", "с": "со", "в": "во"}
_RUSSIAN_CLUSTER_START = {"с": "сзшжщ", "в": "вф"}


def _russian_variant(preposition: str, word: str) -> str:
    word = word.lower()
    if preposition == "о":
        return "об" if word[:1] in _RUSSIAN_VOWELS else "о"
    starts = _RUSSIAN_CLUSTER_START[preposition]
    cluster = len(word) > 1 and word[0] in starts and word[1].isalpha()
    cluster = cluster and word[1] not in _RUSSIAN_VOWELS | set("еёюяьъ")
    return _RUSSIAN_VARIANTS[preposition] if cluster else preposition


@RULE_SETS.register("nonce.spud.surface.ru.v2", short="ru")
def russian_rules(cols: SentenceColumns, replaced: list[bool], counts: Counter) -> None:
    """о/об, с/со and в/во before a replaced word. The lexical vowel forms (*во сне*, *со
    лба*) belong to the nouns they precede, so a replaced noun takes the regular form."""
    for i in range(len(cols) - 1):
        low = cols.forms[i].lower()
        base = next((b for b, v in _RUSSIAN_VARIANTS.items() if low in (b, v)), None)
        if cols.upos[i] != "ADP" or base is None or not replaced[i + 1]:
            continue
        want = _russian_variant(base, cols.forms[i + 1])
        if want != low:
            _set_form(cols, i, like_case(cols.forms[i], want))
            counts["o_ob" if base == "о" else f"{base}_{_RUSSIAN_VARIANTS[base]}"] += 1


@RULE_SETS.register("nonce.spud.surface.ar.v4", short="ar")
def arabic_rules(cols: SentenceColumns, replaced: list[bool], counts: Counter) -> None:
    """The article after li-, and taa marbuta and alif maqsura before a suffix, on replaced
    words."""
    for i in range(len(cols)):
        if not replaced[i]:
            continue
        if after_li(cols, i) and cols.forms[i].startswith("ال"):
            # li + al-: the alif goes (لل|حكومة); before a lam the article's lam too (ل|لغة)
            cols.forms[i] = cols.forms[i][2 if cols.forms[i].startswith("الل") else 1 :]
            counts["li_article"] += 1
        if before_suffix(cols, i) and cols.forms[i].endswith("ة"):
            cols.forms[i] = cols.forms[i][:-1] + "ت"
            counts["taa_marbuta"] += 1
        if before_suffix(cols, i) and cols.forms[i].endswith("ى"):
            cols.forms[i] = cols.forms[i][:-1] + "ا"  # موسيقى + ها -> موسيقاها
            counts["alif_maqsura"] += 1


@RULE_SETS.register("nonce.spud.surface.fr.v2", short="fr")
def french_rules(cols: SentenceColumns, replaced: list[bool], counts: Counter) -> None:
    """Elision, ce/cet, ma/mon, then the contractions they make or undo; the -t- of an
    inverted subject."""
    _french_contractions(cols, _french(cols, replaced, counts), counts)
    _french_inversion(cols, replaced, counts)


_INVERTED = re.compile(r"-(t-)?(il|elle|on)", re.IGNORECASE)


def _french_inversion(cols: SentenceColumns, replaced: list[bool], counts: Counter) -> None:
    """*dit-elle* → *indique-t-elle*, *a-t-il* → *dit-il*: a verb that does not end in t or d
    takes -t- before an inverted il, elle, on."""
    for i in range(len(cols) - 1):
        inverted = _INVERTED.fullmatch(cols.forms[i + 1])
        if not replaced[i] or cols.upos[i + 1] != "PRON" or not inverted:
            continue
        t = "" if cols.forms[i].endswith(("t", "d")) else "t-"
        want = f"-{t}{inverted.group(2)}"
        if want != cols.forms[i + 1]:
            _set_form(cols, i + 1, want)
            counts["inverted_t"] += 1


def _set_form(cols: SentenceColumns, i: int, form: str) -> None:
    cols.forms[i] = form
    cols.misc[i] = drop_form_misc(cols.misc[i])


# --- the sentence ----------------------------------------------------------------------------


def adjust(lang: str, cols: SentenceColumns, replaced: list[bool]) -> Counter:
    """Apply the language's rules to a sentence whose replaced words are in place; respell
    the multiword tokens around replaced words. Returns counts by rule."""
    counts: Counter = Counter()
    if rules := RULE_SETS.find(lang):
        rules(cols, replaced, counts)
    for first, last, token in cols.mwt_spans():
        if any(replaced[first : last + 1]):
            token["form"] = like_case(token["form"], "".join(cols.forms[first : last + 1]))
            token["misc"] = drop_form_misc(token["misc"])
            counts["multiword_token_respelled"] += 1
    return counts


def surface_tokens(cols: SentenceColumns) -> list[tuple[int, int, str, str]]:
    """(first word, last word, form, misc) of each token as written: a multiword token or a
    word outside one."""
    starts = {first: (first, last, t) for first, last, t in cols.mwt_spans()}
    tokens, i = [], 0
    while i < len(cols):
        if i in starts:
            first, last, token = starts[i]
            tokens.append((first, last, token["form"], token["misc"]))
            i = last + 1
        else:
            tokens.append((i, i, cols.forms[i], cols.misc[i]))
            i += 1
    return tokens


def token_gaps(text: str, tokens: list[tuple[int, int, str, str]]) -> list[str] | None:
    """The text between each token and the next, if the tokens spell ``text`` in order."""
    position, gaps = 0, []
    for k, (_, _, form, _) in enumerate(tokens):
        found = text.find(form, position)
        if found < 0 or text[position:found].strip():
            return None
        if k:
            gaps.append(text[position:found])
        position = found + len(form)
    gaps.append(text[position:])
    return gaps


def render_text(original: SentenceColumns, cols: SentenceColumns) -> str:
    """The nonce sentence's text: the original's spacing wherever a token kept its SpaceAfter,
    else one space or none as SpaceAfter says."""
    old_tokens = surface_tokens(original)
    new_tokens = surface_tokens(cols)
    gaps = token_gaps(original.text, old_tokens) if original.text else None
    old_after = {}
    if gaps is not None:
        old_after = {last: (space_after(misc), gaps[k]) for k, (_, last, _, misc) in
                     enumerate(old_tokens)}  # fmt: skip
    parts = []
    for _, last, form, misc in new_tokens:
        space = space_after(misc)
        parts.append(form)
        kept = old_after.get(last)
        if kept is not None and kept[0] == space:
            parts.append(kept[1])
        else:
            parts.append(" " if space else "")
    return "".join(parts).strip()


def set_text(cols: SentenceColumns, text: str) -> None:
    cols.text = text
    cols.comments = [
        f"# text = {text}" if line.split("=")[0].strip() == "# text" else line
        for line in cols.comments
    ]
