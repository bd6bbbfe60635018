"""Credential detection and redaction: pure Python, no network, cheap enough to run on every history
append.

``scan(text)`` finds credentials and returns ``SecretMatch(kind, start, end)`` spans (the secret
value only, never the name it is assigned to); ``redact(text)`` replaces each span by
``[REDACTED:<kind>]``. Redaction is idempotent: a redacted text scans clean.

Kinds (see ``KINDS``):

- Fixed-format tokens, found by their prefix and shape: ``aws-access-key-id`` (``AKIA``/``ASIA``… +
  16), ``anthropic-key`` (``sk-ant-…``), ``openai-key`` (``sk-…``, ``sk-proj-…``), ``github-token``
  (``ghp_``, ``gho_``, ``ghu_``, ``ghs_``, ``ghr_``, ``github_pat_``), ``slack-token``
  (``xox[abprs]-…``), ``google-api-key`` (``AIza`` + 35), ``stripe-key`` (``sk_live_``,
  ``rk_live_``, ``pk_live_``, ``sk_test_``, ``rk_test_``), ``jwt`` (three base64url segments, the
  first two JSON objects), ``private-key`` (a whole PEM private key block), ``twilio-key`` (``SK`` +
  32 hex), ``sendgrid-key`` (``SG.``…``.``…), ``huggingface-token`` (``hf_``), ``gitlab-token``
  (``glpat-``), ``npm-token`` (``npm_``), ``pypi-token`` (``pypi-AgEIcHlwaS5vcmc``…),
  ``discord-token`` (a bot token's three dotted parts), ``telegram-token`` (``<bot id>:<35
  characters>``), ``slack-webhook`` (the secret path of ``hooks.slack.com/services/…``),
  ``stripe-key`` also ``whsec_``, ``azure-sas`` (the ``sig=`` of a shared access signature).
- ``url-password``: the password of ``scheme://user:password@host`` (obvious placeholders are left
  alone).
- ``aws-secret-key``: 40 base64 characters assigned to a name mentioning AWS and secret.
- ``bearer-token``: a high-entropy token after ``Bearer``; ``basic-auth``: the base64 after
  ``Authorization: Basic``.
- ``password`` in command lines and credential files: ``mysql -pX``, ``docker login -p X`` /
  ``--password X``, ``.netrc`` (``machine … login … password X``), ``.pgpass``
  (``host:port:db:user:X``).
- Credentials in prose, what a chat memory sees most: ``password`` after "my/the (wifi) password is
  X", "the passphrase was X", "with/using (the) password/secret/passphrase X" (also passcode, token,
  api key), and ``pin``: 4 to 8 digits after "PIN". A prose value must look like one (a digit, a
  symbol or mixed case, or a word of 6+ letters that is not ordinary English: "the password is
  wrong" and "I forgot my password" are not).
- ``password`` / ``secret``: a value assigned (``=``, ``:``, ``=>``, ``:=``) to a name ending in
  password/passwd/pwd/pass/passphrase or key/secret/token/credential(s)/auth, accepted only if it
  looks random: long enough, several character classes, Shannon entropy over a threshold, and not an
  identifier, a path, a URL, a placeholder or a variable reference. Names mentioning "public" are
  ignored. A quoted value assigned to a password name may hold spaces (``export DB_PASSWORD='a
  b'``).

Things deliberately not reported: git object ids and other bare hex strings, UUIDs, base64 data,
file paths and URLs without a password, unless they are assigned to a secret-like name. Measured
detection and false-positive rates are in docs/security.md and BENCHMARKS.md (corpus:
``tests/support/security_corpus.py``).
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..text.lazyre import lazy

__all__ = ["SecretMatch", "KINDS", "scan", "redact", "scrub", "shannon_entropy"]

KINDS = (
    "private-key",
    "aws-access-key-id",
    "aws-secret-key",
    "anthropic-key",
    "openai-key",
    "github-token",
    "slack-token",
    "google-api-key",
    "stripe-key",
    "jwt",
    "twilio-key",
    "sendgrid-key",
    "huggingface-token",
    "gitlab-token",
    "npm-token",
    "pypi-token",
    "discord-token",
    "telegram-token",
    "slack-webhook",
    "azure-sas",
    "url-password",
    "bearer-token",
    "basic-auth",
    "password",
    "pin",
    "secret",
)

_REDACTED_PREFIX = "[REDACTED:"


@dataclass(frozen=True, slots=True)
class SecretMatch:
    """A credential found in a text: ``text[start:end]`` is the secret value."""

    kind: str
    start: int
    end: int


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value``'s own character distribution."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


# -- fixed-format tokens ---------------------------------------------------------------------------
# Every pattern starts with a literal so the regex engine can skip ahead with a fast substring
# search (a leading look-behind or case-insensitive alternation costs ~1 ms per 64 kB each); the
# left boundary (not inside a longer token) is checked in code instead.
_TOKEN_NEIGHBOURS = frozenset(string.ascii_letters + string.digits + "_-")
_R = r"(?![A-Za-z0-9_\-])"  # right boundary

_PEM = lazy(
    r"-----BEGIN (?P<label>(?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?)-----"
    r"(?:.*?-----END (?P=label)-----|.*\Z)",
    re.S,
)


def _mixed(value: str) -> bool:
    """True when ``value`` has a digit and a letter: random tokens almost always do, word lists do
    not."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _sk_ok(value: str) -> bool:
    body = value.split("-", 1)[1] if "-" in value else value
    longest_run = max(len(run) for run in re.split(r"[-_]", body))
    # Random key bodies have long runs between '-'/'_'; "sk-test-example-key-123" is words.
    return longest_run >= 10 and _mixed(body) and shannon_entropy(body) >= 3.5


def _pem_ok(block: str) -> bool:
    """A real key block has base64 in it; ``BEGIN … PRIVATE KEY-----\\n...\\n-----END`` placeholders
    do not."""
    return _BASE64_RUN.search(block) is not None


_BASE64_RUN = lazy(r"[A-Za-z0-9+/=]{20}")


def _random_case(value: str) -> bool:
    """Upper and lower case mixed the way random tokens mix them (``hf_`` tokens are often letters
    only)."""
    body = value.split("_", 1)[-1]
    return (
        any(c.isupper() for c in body)
        and any(c.islower() for c in body)
        and shannon_entropy(body) >= 3.5
    )


def _aws_id_ok(value: str) -> bool:
    return not value.endswith("EXAMPLE")  # AWS's documented example ids


_AWS_PREFIXES = "AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA"

# (kind, pattern, validator or None)
_RULES: list[tuple[str, re.Pattern[str], Callable[[str], bool] | None]] = [
    ("private-key", _PEM, _pem_ok),
    (
        "aws-access-key-id",
        lazy(rf"(?:{_AWS_PREFIXES})[A-Z2-7]{{16}}(?![A-Za-z0-9])"),
        _aws_id_ok,
    ),
    ("anthropic-key", lazy(r"sk-ant-[A-Za-z0-9_\-]{32,}" + _R), _sk_ok),
    (
        "openai-key",
        lazy(r"sk-(?!ant-)(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_\-]{20,}" + _R),
        _sk_ok,
    ),
    *(
        ("github-token", lazy(prefix + r"_[A-Za-z0-9]{36,255}(?![A-Za-z0-9_])"), None)
        for prefix in ("ghp", "gho", "ghu", "ghs", "ghr")
    ),
    ("github-token", lazy(r"github_pat_[A-Za-z0-9_]{22,255}(?![A-Za-z0-9_])"), None),
    ("slack-token", lazy(r"xox[abprs]-[A-Za-z0-9\-]{10,250}" + _R), _mixed),
    ("slack-token", lazy(r"xapp-\d-[A-Za-z0-9\-]{10,250}" + _R), _mixed),
    ("google-api-key", lazy(r"AIza[0-9A-Za-z_\-]{35}" + _R), None),
    *(
        ("stripe-key", lazy(prefix + r"_[0-9A-Za-z]{16,247}(?![A-Za-z0-9_])"), _mixed)
        for prefix in ("sk_live", "rk_live", "pk_live", "sk_test", "rk_test")
    ),
    (
        "jwt",
        lazy(r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{16,}" + _R),
        None,
    ),
    ("stripe-key", lazy(r"whsec_[0-9A-Za-z]{24,247}(?![A-Za-z0-9_])"), _mixed),
    ("twilio-key", lazy(r"SK[0-9a-f]{32}(?![A-Za-z0-9_])"), _mixed),
    ("sendgrid-key", lazy(r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,64}" + _R), None),
    ("huggingface-token", lazy(r"hf_[A-Za-z0-9]{30,40}(?![A-Za-z0-9_])"), _random_case),
    ("gitlab-token", lazy(r"glpat-[A-Za-z0-9_\-]{20,40}" + _R), _mixed),
    ("npm-token", lazy(r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])"), _mixed),
    ("pypi-token", lazy(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{40,}" + _R), None),
]

# Tokens without a literal prefix: each pattern starts at the token's rarest literal part (see
# above), and ``_shaped_tokens`` checks the rest of the shape in code.
_SLACK_WEBHOOK = lazy(
    r"hooks\.slack\.com/services/(?P<val>T[A-Z0-9]{6,12}/B[A-Z0-9]{6,12}/[A-Za-z0-9]{20,32})" + _R
)
# then 24-28 chars before, from M/N/O
_DISCORD_TAIL = lazy(r"\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}" + _R)
_TELEGRAM = lazy(r":AA[A-Za-z0-9_\-]{33}" + _R)  # after an 8-10 digit bot id
_AZURE_SIG = lazy(r"sig=(?P<val>[A-Za-z0-9%+/]{30,}(?:%3D|=){0,2})")
_BASIC = lazy(
    r"authorization[\"']?[ \t]*[:=][ \t]*[\"']?basic[ "
    r"\t]+(?P<val>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])"
)

# -- passwords inside URLs -------------------------------------------------------------------------
_URL_PASSWORD = lazy(
    r"://[^\s:/?#@'\"<>\[\],]{1,128}:(?P<pw>[^\s:/@'\"<>,]{1,256})@(?=[A-Za-z0-9\[])"
)
_PLACEHOLDERS = frozenset(
    {
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "changeme",
        "example",
        "placeholder",
        "token",
        "your_password",
        "yourpassword",
        "mypassword",
        "user",
        "username",
        "none",
        "null",
        "redacted",
        "<password>",
        "[password]",
        "{password}",
        "***",
        "xxx",
        "...",
        "pass123",
        "password123",
    }
)


def _is_placeholder(value: str) -> bool:
    low = value.lower()
    if low in _PLACEHOLDERS or low.startswith(_REDACTED_PREFIX.lower()) or "example" in low:
        return True
    # $VAR, ${VAR}, %(name)s, {{x}}, <your-key>, ****
    if value[0] in "$%{<[*" or value.startswith("@@"):
        return True
    # xxxxx, *****, truncated examples
    if set(low) <= set("x*.-_•#") or "..." in value or "…" in value:
        return True
    if low.startswith(("os.environ", "env.", "env:", "process.env", "secrets.", "vault:", "ref:")):
        return True
    return "your" in low and ("key" in low or "token" in low or "pass" in low or "secret" in low)


# -- values assigned to secret-like names ----------------------------------------------------------
# Searched in the lower-cased text (literal prefixes, see above); the value is then read from the
# original text.
_ASSIGN_TAIL = r"s?[\"'\]]?[ \t]{0,3}(?P<sep>=>|:=|[:=])(?P<ws>[ \t]{0,3})(?P<q>[\"'`]?)"
_ASSIGN = [
    lazy(f"(?P<kw>{kw}){_ASSIGN_TAIL}")
    for kw in (
        "passphrase",
        "pass(?:w(?:or)?d)?",
        "pwd",
        "key",
        "secret",
        "token",
        "credentials?",
        "auth",
    )
]
_QUOTED_VALUE = lazy(r"[^\n\"'`]{1,128}")

# -- passwords in command lines and credential files (searched in the lower-cased text) ------------
_CLI_PASSWORD = [  # (a literal the text must hold, the pattern)
    (
        "mysql",
        lazy(r"mysql(?:dump|admin)?\b[^\n|;&]{0,200}?[ \t]-p(?P<val>[^\s\"'`]{3,128})"),
    ),
    (
        "docker",
        lazy(
            r"docker[ \t]+login\b[^\n|;&]{0,200}?[ \t](?:-p|--password)(?:[ "
            r"\t]+|=)(?P<q>[\"']?)(?P<val>[^\s\"'`]{3,128})"
        ),
    ),
    (
        "machine",
        lazy(r"machine[ \t]+[^\s]+[ \t][^\n]{0,200}?password[ \t]+(?P<val>\S{3,128})"),
    ),  # .netrc
]
_PGPASS = lazy(r"\A[a-z0-9.\-*\[\]:]+:(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:(?P<val>[^\s:]{4,128})\Z")

# -- credentials in prose --------------------------------------------------------------------------
_PROSE_KWS = (
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "pass word",
    "secret",
    "api key",
    "token",
    "pw",
)
_PROSE_VALUE = r"[ \t]+(?P<q>[\"'“‘`]?)(?P<val>[^\s\"'“”‘’`]{4,128})"
# "my password is X", "the wifi password is now X" ("password: X" and "= X" are the assignment
# rule's)
_PROSE_IS = {
    kw: lazy(
        re.escape(kw)
        + r"[ \t]+(?:is|was|will[ \t]+be)(?:[ \t]+(?:now|still|set[ \t]+to))?[ \t]*:?"
        + _PROSE_VALUE
    )
    for kw in _PROSE_KWS
}
# "with secret X", "using the password X": the keyword followed by a value, preceded by ``_WITH``
# (checked in code)
_PROSE_WITH = {kw: lazy(re.escape(kw) + _PROSE_VALUE) for kw in _PROSE_KWS}
_WITH = lazy(r"(?:^|[^a-z0-9])(?:with|using|use)[ \t]+(?:(?:the|my|our)[ \t]+)?\Z")
_PIN = lazy(
    r"pin(?:[ \t]+(?:code|number))?(?:[ \t]+(?:is|was))?[ \t]*[:=#]?[ "
    r"\t]*(?P<val>\d{4,8})(?![\d.,:/\-])"
)
#: Words that follow "password is" without being one ("the password is wrong", "… is in the vault").
_NOT_A_VALUE = frozenset(
    """
a an the my your his her our their its this that these those some any no not none nothing too very
so also just still now set same different wrong right correct incorrect invalid valid expired
required optional missing empty blank weak strong secure insecure long short good bad ok okay fine
safe unsafe hidden visible new old default changed reset stored saved written encrypted hashed case
sensitive here there in on at for of to from with by and or but if when because what which who where
how again please thanks thank yes sure above below same something anything everything unknown
unchanged easy hard simple complex random generated temporary forgotten lost stolen leaked
compromised protected printed listed shown available needed necessary mandatory enabled disabled
managed rotated shared separate unique personal private public reused whatever whichever usually
probably actually somewhere nowhere elsewhere inside outside behind between written
""".split()
)
_SYMBOLS = frozenset(string.punctuation)
_VALUE = lazy(r"[^\s\"'`,;(){}\[\]<>]{6,512}")
# Keywords that are common inside ordinary words ("monkey", "bypass", "oauth"): they must start a
# name part.
_NEEDS_BOUNDARY = frozenset({"key", "pass", "auth", "pwd"})
_NAME_CHARS = string.ascii_letters + string.digits + "_.-"
_IDENT = lazy(r"[A-Za-z_][A-Za-z0-9_]*(?:[.\-][A-Za-z_][A-Za-z0-9_]*)*")
_TOKEN_CHARS = lazy(r"[A-Za-z0-9+/=_\-.~:]+")
_UUID = lazy(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_AWS_SECRET = lazy(r"[A-Za-z0-9/+]{40}")
_BEARER = lazy(r"bearer[ \t]+(?P<val>[A-Za-z0-9._~+/\-]{20,1024}=*)(?![A-Za-z0-9._~+/\-])")


def _name_before(text: str, kw_start: int) -> str:
    """The name characters just before the keyword (``AWS_SECRET_ACCESS_`` before ``KEY``)."""
    window = text[max(0, kw_start - 64) : kw_start]
    return window[len(window.rstrip(_NAME_CHARS)) :]


def _keyword_at_boundary(text: str, kw_start: int, kw: str) -> bool:
    if kw_start == 0:
        return True
    before = text[kw_start - 1]
    if not before.isalnum():
        return True
    return before.islower() and kw[0].isupper()  # camelCase: apiKey, dbPass


def _looks_like_identifier(value: str) -> bool:
    """``settings.api_key``, ``SECRET_NAME``, ``getToken``, ``v2.max_tokens``: code, not a
    credential."""
    return bool(_IDENT.fullmatch(value)) and all(
        _word_like(part) for part in re.split(r"[.\-]", value)
    )


def _word_like(part: str) -> bool:
    letters = [c for c in part if c.isalpha()]
    if not letters or sum(c.isdigit() for c in part) > max(2, len(part) // 8):
        return False
    upper = sum(c.isupper() for c in letters)
    # Random letters are about half upper-case; names are one case (snake, CONSTANT) or camelCase
    # (few capitals).
    return upper in (0, len(letters)) or upper / len(letters) < 0.35


def _looks_like_path_or_url(value: str) -> bool:
    return (
        value.startswith(("/", "~/", "./", "../", "\\\\"))
        or "://" in value
        or (len(value) > 2 and value[1] == ":" and value[2] in "/\\")
    )


def _classes(value: str) -> int:
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


def _assigned_kind(text: str, m: re.Match[str], v: re.Match[str]) -> str | None:
    """The kind of value ``v`` assigned by ``m`` (matched on the lower-cased text), or None if not a
    credential.

    Three questions in turn: is this an assignment of a plain value, does the name say credential,
    and does the value look like one (a password by people's rules, anything else by randomness)."""
    if not _assigns_a_plain_value(text, m, v):
        return None
    kw_start, kw_end = m.span("kw")
    kw = text[kw_start:kw_end]
    name = (_name_before(text, kw_start) + kw).lower()
    if not _names_a_credential(text, kw_start, kw, name):
        return None
    if kw.lower().startswith(("pass", "pwd")):
        return _password_kind(v.group(0))
    return _token_kind(v.group(0), name)


def _assigns_a_plain_value(text: str, m: re.Match[str], v: re.Match[str]) -> bool:
    """Not a call or subscript, not a quoted phrase cut short, not an ``a:b:c`` chain, not our own
    marker."""
    end = v.end()
    if end < len(text) and text[end] in "({[":
        return False  # a call or subscript: get_password(), env["TOKEN"]
    quote = m.group("q")
    if quote and (end >= len(text) or text[end] != quote):
        return False  # the quoted value goes on past what we captured (spaces): prose, not a token
    if m.group("sep") == ":" and not quote and not m.group("ws"):
        # "a:b:c" chains (ARNs, URNs, host:port): YAML and prose put a space after the colon
        return False
    kw_start = m.start("kw")
    opening = text.rfind("[", max(0, kw_start - 32), kw_start)
    # the kind inside our own "[REDACTED:bearer-token]" marker is not a name
    return not (opening >= 0 and text.startswith(_REDACTED_PREFIX, opening))


def _names_a_credential(text: str, kw_start: int, kw: str, name: str) -> bool:
    """The keyword starts a name part (not "monkey", "bypass") and the name is not a public
    key's."""
    if (
        kw.lower() in _NEEDS_BOUNDARY
        and not _keyword_at_boundary(text, kw_start, kw)
        and not name.endswith("apikey")
    ):
        return False
    return "public" not in name and not name.endswith(("pubkey", "pub_key"))


def _password_kind(value: str) -> str | None:
    """Passwords are short and chosen by people: several character classes, not randomness."""
    if not _mixed(value):
        return None  # cheapest test first: a password worth hiding has letters and digits
    if _is_placeholder(value) or _looks_like_path_or_url(value):
        return None
    if _looks_like_identifier(value) and ("_" in value or "." in value):
        # "hunter2" is a (bad) password; "self.password", "new_pass", "PasswordField" are code
        return None
    if len(value) >= 6 and _classes(value) >= 2 and shannon_entropy(value) >= 2.3:
        return "password"
    return None


def _token_kind(value: str, name: str) -> str | None:
    """A key, token or secret: long, token-shaped and random enough (an AWS secret key by its own
    shape)."""
    if _is_placeholder(value) or _looks_like_path_or_url(value) or _looks_like_identifier(value):
        return None
    if "aws" in name and "secret" in name and _AWS_SECRET.fullmatch(value):
        return "aws-secret-key"
    if _UUID.fullmatch(value) and not any(w in name for w in ("key", "secret")):
        return None  # request ids and idempotency "tokens"
    entropy = shannon_entropy(value)
    if len(value) < 16 or not _TOKEN_CHARS.fullmatch(value) or entropy < 3.0:
        return None
    if not _mixed(value) and (len(value) < 24 or entropy < 4.0):
        # a long random token may lack digits by chance; a short one without them is a word
        return None
    if value.replace("-", "").replace(".", "").isdigit():
        return None  # phone numbers, dates, version strings
    return "secret"


def _prose_value_ok(value: str, *, plain_words: bool = True) -> bool:
    """A word after "password is" that looks like a password, not like the rest of a sentence.
    ``plain_words``: whether one ordinary lower-case word may be one ("my password is sunshine"; not
    after "with secret")."""
    value = value.rstrip(".,;:?)]}")
    if len(value) < 4 or _is_placeholder(value) or _looks_like_path_or_url(value):
        return False
    low = value.lower()
    if low in _NOT_A_VALUE or low.startswith(_REDACTED_PREFIX.lower()):
        return False
    if any(c.isdigit() for c in value) or any(c in _SYMBOLS for c in value):
        return (
            not value.replace("-", "").replace(".", "").replace(",", "").isdigit()
            or len(value) >= 6
        )
    if value.isalpha() and value != low and value != value.upper() and not value.istitle():
        return True  # mixed case: tOrtoise
    # One ordinary lower-case word: accepted when long and not an English adjective or participle.
    return (
        plain_words
        and value.isalpha()
        and len(value) >= 6
        and not low.endswith(("ed", "ing", "ly", "able", "ible", "ful", "less"))
    )


def _quoted_password(text: str, m: re.Match[str]) -> re.Match[str] | None:
    """A quoted value with spaces assigned to a password name: the whole quoted text, if it closes
    on its line."""
    v = _QUOTED_VALUE.match(text, m.end())
    if v is None or v.end() >= len(text) or text[v.end()] != m.group("q"):
        return None
    return v if len(v.group(0).strip()) >= 4 and not _is_placeholder(v.group(0).strip()) else None


def _ascii_lower(text: str) -> str:
    """Lower-case with offsets preserved (``str.lower`` may lengthen a few non-ASCII characters)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _left_ok(text: str, start: int) -> bool:
    return start == 0 or text[start - 1] not in _TOKEN_NEIGHBOURS


def scan(text: str) -> list[SecretMatch]:
    """Every credential in ``text``, as non-overlapping spans in text order."""
    if not text or len(text) < 8:
        return []
    # keyword rules search the lower-cased text; values are read from the original
    low = _ascii_lower(text)
    found = [
        *_fixed_format_tokens(text),
        *_url_passwords(text),
        *_bearer_tokens(text, low),
        *_basic_auth(text, low),
        *_shaped_tokens(text),
        *_assigned_values(text, low),
        *_commands_and_prose(text, low),
    ]
    return _without_overlaps(found)


def _fixed_format_tokens(text: str) -> list[SecretMatch]:
    """Tokens with a literal prefix (``_RULES``), not inside a longer token, that their validator
    accepts."""
    found: list[SecretMatch] = []
    for kind, pattern, ok in _RULES:
        for m in pattern.finditer(text):
            if (kind == "private-key" or _left_ok(text, m.start())) and (
                ok is None or ok(m.group(0))
            ):
                found.append(SecretMatch(kind, m.start(), m.end()))
    return found


def _url_passwords(text: str) -> list[SecretMatch]:
    """The password of ``scheme://user:password@host`` (placeholders and short one-class words left
    alone)."""
    found: list[SecretMatch] = []
    for m in _URL_PASSWORD.finditer(text):
        pw = m.group("pw")
        scheme_ok = m.start() > 0 and text[m.start() - 1].isalnum()
        if scheme_ok and not _is_placeholder(pw) and (len(pw) >= 8 or _classes(pw) >= 2):
            found.append(SecretMatch("url-password", m.start("pw"), m.end("pw")))
    return found


def _bearer_tokens(text: str, low: str) -> list[SecretMatch]:
    found: list[SecretMatch] = []
    for m in _BEARER.finditer(low):
        if m.start() > 0 and low[m.start() - 1].isalnum():
            continue
        value = text[m.start("val") : m.end("val")]
        if _mixed(value) and shannon_entropy(value) >= 3.0 and not _is_placeholder(value):
            found.append(SecretMatch("bearer-token", m.start("val"), m.end("val")))
    return found


def _basic_auth(text: str, low: str) -> list[SecretMatch]:
    found: list[SecretMatch] = []
    for m in _BASIC.finditer(low):
        value = text[m.start("val") : m.end("val")]
        if len(value) >= 12 and not _is_placeholder(value):
            found.append(SecretMatch("basic-auth", m.start("val"), m.end("val")))
    return found


def _assigned_values(text: str, low: str) -> list[SecretMatch]:
    """Values assigned to secret-like names (``API_KEY=…``, ``"password": "…"``), a quoted phrase
    for a password."""
    found: list[SecretMatch] = []
    for pattern in _ASSIGN:
        for m in pattern.finditer(low):
            v = _VALUE.match(text, m.end())
            assigned = _assigned_kind(text, m, v) if v is not None else None
            if v is not None and assigned is not None:
                found.append(SecretMatch(assigned, v.start(), v.end()))
            elif m.group("q") and m.group("kw").startswith(("pass", "pwd")):
                quoted = _quoted_password(text, m)
                if quoted is not None:
                    found.append(SecretMatch("password", quoted.start(), quoted.end()))
    return found


def _run_before(text: str, end: int, chars: frozenset[str], longest: int) -> int:
    """Where the run of ``chars`` ending at ``end`` starts (looking back at most ``longest + 1``
    characters)."""
    start = end
    while start > 0 and end - start <= longest and text[start - 1] in chars:
        start -= 1
    return start


_DIGITS = frozenset(string.digits)


def _shaped_tokens(text: str) -> list[SecretMatch]:
    """Tokens found from a distinctive middle part: Discord and Telegram bot tokens, Slack webhooks,
    Azure SAS."""
    found: list[SecretMatch] = []
    if "hooks.slack.com" in text:
        for m in _SLACK_WEBHOOK.finditer(text):
            found.append(SecretMatch("slack-webhook", m.start("val"), m.end("val")))
    for m in _DISCORD_TAIL.finditer(text):
        start = _run_before(text, m.start(), _TOKEN_NEIGHBOURS, 28)
        length = m.start() - start
        if (
            24 <= length <= 28
            and text[start] in "MNO"
            and (start == 0 or text[start - 1] != ".")
            and _mixed(text[start : m.end()])
        ):
            found.append(SecretMatch("discord-token", start, m.end()))
    if ":AA" in text:
        for m in _TELEGRAM.finditer(text):
            start = _run_before(text, m.start(), _DIGITS, 10)
            if 8 <= m.start() - start <= 10 and _mixed(m.group(0)):
                found.append(SecretMatch("telegram-token", start, m.end()))
    if "sig=" in text:
        for m in _AZURE_SIG.finditer(text):
            if m.start() > 0 and text[m.start() - 1] in "?&;":
                found.append(SecretMatch("azure-sas", m.start("val"), m.end("val")))
    return found


def _commands_and_prose(text: str, low: str) -> list[SecretMatch]:
    """Passwords in command lines, credential files and sentences (see the module docstring)."""
    found: list[SecretMatch] = []
    for literal, pattern in _CLI_PASSWORD:
        if literal not in low:
            continue
        for m in pattern.finditer(low):
            value = text[m.start("val") : m.end("val")]
            if not _is_placeholder(value):
                found.append(SecretMatch("password", m.start("val"), m.end("val")))
    if text.count(":") >= 4:
        offset = 0
        for line in low.split("\n"):
            if line.count(":") >= 4:
                pg = _PGPASS.match(line)
                if pg:
                    value = text[offset + pg.start("val") : offset + pg.end("val")]
                    if not _is_placeholder(value) and not value.isdigit():
                        found.append(
                            SecretMatch(
                                "password", offset + pg.start("val"), offset + pg.end("val")
                            )
                        )
            offset += len(line) + 1
    present = [kw for kw in _PROSE_KWS if kw in low]
    for patterns, plain_words in ((_PROSE_IS, True), (_PROSE_WITH, False)):
        for kw in present:
            for m in patterns[kw].finditer(low):
                if m.start() > 0 and low[m.start() - 1].isalnum():
                    continue  # inside a word: "bypassword", "tokens"
                if not plain_words and not _WITH.search(low, max(0, m.start() - 24), m.start()):
                    continue
                start, end = m.span("val")
                value = text[start:end].rstrip(".,;:?)]}")
                if m.group("q") or _prose_value_ok(value, plain_words=plain_words):
                    if (
                        not _is_placeholder(value)
                        and value.lower() not in _NOT_A_VALUE
                        and len(value) >= 4
                    ):
                        found.append(SecretMatch("password", start, start + len(value)))
    if "pin" in low:
        for m in _PIN.finditer(low):
            if m.start() == 0 or not (low[m.start() - 1].isalnum() or low[m.start() - 1] == "_"):
                found.append(SecretMatch("pin", m.start("val"), m.end("val")))
    return found


def _without_overlaps(found: list[SecretMatch]) -> list[SecretMatch]:
    """Keep the earliest-starting (then longest) span of each overlapping group."""
    found.sort(key=lambda s: (s.start, -(s.end - s.start)))
    out: list[SecretMatch] = []
    for match in found:
        if out and match.start < out[-1].end:
            if match.end > out[-1].end and out[-1].kind in ("password", "secret"):
                out[-1] = SecretMatch(match.kind, out[-1].start, match.end)
            continue
        out.append(match)
    return out


def redact(text: str) -> str:
    """``text`` with every credential value replaced by ``[REDACTED:<kind>]``.

    Repeated until nothing more is found (at most three passes), so the result always scans clean:
    removing a value can expose a neighbour that was glued to it, and redacting twice must change
    nothing.
    """
    for _ in range(3):
        matches = scan(text)
        if not matches:
            break
        text = _replace(text, matches)
    return text


def _replace(text: str, matches: list[SecretMatch]) -> str:
    parts: list[str] = []
    pos = 0
    for match in matches:
        parts.append(text[pos : match.start])
        parts.append(f"{_REDACTED_PREFIX}{match.kind}]")
        pos = match.end
    parts.append(text[pos:])
    return "".join(parts)


# A value after a credential header or parameter name in an error text: redacted whatever its shape,
# because an error message quoting a request has no business carrying it (``redact`` alone keeps
# low-entropy values).
_CREDENTIAL_FIELD = lazy(
    r"(?i)(?<=api_key=)[^\s&'\"]+|(?<=api-key: )\S+|(?<=x-api-key )\S+|(?<=authorization: )[^\n]+"
)


def scrub(text: str, known: Iterable[str] = ()) -> str:
    """``text`` fit to show or log: every ``known`` secret value (the keys a request carried)
    replaced by ``[REDACTED]``, then anything after a credential header, then whatever ``redact``
    finds.

    The one scrubber for error texts (the model client's errors among them); ``redact`` stays the
    detector for memory content, where a false positive costs a fact.
    """
    for value in sorted({v for v in known if v and len(v) >= 4}, key=len, reverse=True):
        text = text.replace(value, "[REDACTED]")
    return redact(_CREDENTIAL_FIELD.sub("[REDACTED]", text))
