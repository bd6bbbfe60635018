"""A labelled corpus for the secret scanner: FAKE credentials in real formats, and look-alikes that
are not secrets.

Every credential here is generated from a fixed seed (nothing is a real key). ``SECRETS`` holds
``(kind, text, value)``: ``value`` sits somewhere inside ``text`` and must be fully covered by a
scan match. ``BENIGN`` holds ``(label, text)`` samples in which nothing may be found. ``measure()``
returns the rates the docs/security.md states; ``python -m tests.support.security_corpus`` prints
them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from dataclasses import dataclass

_rng = random.Random(20261122)
ALNUM = string.ascii_letters + string.digits
UPPER_B32 = string.ascii_uppercase + "234567"
B64 = ALNUM + "/+"
URLSAFE = ALNUM + "_-"


def _r(chars: str, n: int) -> str:
    return "".join(_rng.choice(chars) for _ in range(n))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _jwt() -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(
        json.dumps(
            {"sub": str(_rng.randint(1, 10**9)), "name": "Fake User", "iat": 1700000000}
        ).encode()
    )
    return f"{header}.{payload}.{_b64url(_rng.randbytes(32))}"


def _pem(label: str) -> str:
    body = base64.b64encode(_rng.randbytes(300)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


_GENERATORS = {
    "aws-access-key-id": lambda: _rng.choice(["AKIA", "ASIA"]) + _r(UPPER_B32, 16),
    "aws-secret-key": lambda: _r(B64, 40),
    "openai-key": lambda: _rng.choice(
        ["sk-" + _r(ALNUM, 48), "sk-proj-" + _r(URLSAFE, 120), "sk-svcacct-" + _r(URLSAFE, 80)]
    ),
    "anthropic-key": lambda: "sk-ant-api03-" + _r(URLSAFE, 93) + "AA",
    "github-token": lambda: (
        _rng.choice(["ghp_", "gho_", "ghs_", "ghu_"]) + _r(ALNUM, 36)
        if _rng.random() < 0.7
        else "github_pat_" + _r(ALNUM, 22) + "_" + _r(ALNUM, 59)
    ),
    "slack-token": lambda: (
        _rng.choice(["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-"])
        + f"{_rng.randint(10**10, 10**12)}-{_rng.randint(10**10, 10**12)}-{_r(ALNUM, 24)}"
    ),
    "google-api-key": lambda: "AIza" + _r(URLSAFE, 35),
    "stripe-key": lambda: (
        _rng.choice(["sk_live_", "rk_live_", "pk_live_", "sk_test_"]) + _r(ALNUM, 24)
    ),
    "jwt": _jwt,
    "private-key": lambda: _pem(
        _rng.choice(
            [
                "RSA PRIVATE KEY",
                "PRIVATE KEY",
                "EC PRIVATE KEY",
                "OPENSSH PRIVATE KEY",
                "ENCRYPTED PRIVATE KEY",
            ]
        )
    ),
    "url-password": lambda: (
        _r(string.ascii_letters, 6) + _r(string.digits, 3) + _r("!%^&*", 1) + _r(ALNUM, 4)
    ),
    "password": lambda: (
        _rng.choice(["hunter2", "Tr0ub4dor&3", "S3cure!pass", "qwerty123", "P@ssw0rd2024"])
        + _r(string.digits, _rng.randint(0, 3))
    ),
    "secret": lambda: _rng.choice(
        [_r(ALNUM, 32), _r("0123456789abcdef", 64), _r(URLSAFE, 43), _r(B64, 44)]
    ),
    "bearer-token": lambda: _r(URLSAFE, 40),
    "twilio-key": lambda: "SK" + _r("0123456789abcdef", 32),
    "sendgrid-key": lambda: "SG." + _r(URLSAFE, 22) + "." + _r(URLSAFE, 43),
    "huggingface-token": lambda: "hf_" + _r(string.ascii_letters, 34),
    "gitlab-token": lambda: "glpat-" + _r(URLSAFE, 20),
    "npm-token": lambda: "npm_" + _r(ALNUM, 36),
    "pypi-token": lambda: "pypi-AgEIcHlwaS5vcmc" + _r(URLSAFE, 120),
    "discord-token": lambda: (
        _rng.choice("MNO") + _r(ALNUM, 23) + "." + _r(URLSAFE, 6) + "." + _r(URLSAFE, 38)
    ),
    "telegram-token": lambda: str(_rng.randint(10**8, 10**10 - 1)) + ":AA" + _r(URLSAFE, 33),
    "slack-webhook": lambda: (
        "T" + _r(UPPER_B32, 8) + "/B" + _r(UPPER_B32, 10) + "/" + _r(ALNUM, 24)
    ),
    "azure-sas": lambda: _r(ALNUM + "%", 43) + "%3D",
    "basic-auth": (
        lambda: base64.b64encode(
            f"{_r(string.ascii_lowercase, 6)}:{_r(ALNUM, 12)}".encode()
        ).decode()
    ),
    "pin": lambda: _r(string.digits, _rng.choice([4, 4, 6])),
}

# Contexts: {v} is the value. Chosen to look like chat turns, tool outputs, shell, config and code.
_CONTEXTS = {
    "aws-access-key-id": [
        "AWS_ACCESS_KEY_ID={v}",
        "my key id is {v} for the staging account",
        "aws_access_key_id = {v}",
    ],
    "aws-secret-key": [
        "aws_secret_access_key = {v}",
        "export AWS_SECRET_ACCESS_KEY={v}",
        '"AwsSecretKey": "{v}"',
    ],
    "openai-key": [
        "OPENAI_API_KEY={v}",
        "here's my key: {v} please use it",
        'client = OpenAI(api_key="{v}")',
    ],
    "anthropic-key": ["ANTHROPIC_API_KEY={v}", "use {v} for claude", "x-api-key: {v}"],
    "github-token": [
        "git clone https://{v}@github.com/acme/repo.git",
        "GITHUB_TOKEN={v}",
        "token {v} expires soon",
    ],
    "slack-token": [
        "SLACK_BOT_TOKEN={v}",
        "the bot uses {v}",
        "curl -H 'Authorization: Bearer {v}' slack.test",
    ],
    "google-api-key": [
        "maps key {v}",
        "GOOGLE_API_KEY={v}",
        "https://maps.googleapis.test/api?key={v}",
    ],
    "stripe-key": ["STRIPE_SECRET_KEY={v}", "stripe.api_key = '{v}'", "live key is {v}"],
    "jwt": ["Authorization: Bearer {v}", "the session cookie was {v}", '{{"id_token": "{v}"}}'],
    "private-key": [
        "here is the deploy key:\n{v}\nkeep it safe",
        "{v}",
        "cat ~/.ssh/id_rsa\n{v}\n",
    ],
    "url-password": [
        "DATABASE_URL=postgres://app:{v}@db.internal:5432/prod",
        "connect to mongodb+srv://admin:{v}@cluster0.example.net/test",
        "proxy is http://bob:{v}@10.0.0.5:3128",
    ],
    "password": [
        "password: {v}",
        "DB_PASSWORD={v}",
        '"password": "{v}"',
        "my wifi passwd = {v}",
        # credentials in prose: what a chat memory sees most
        "my password is {v}",
        "the wifi password is {v}",
        "USER: btw the wifi password is now {v} at the cabin",
        "connect to the VPN with secret {v}",
        "log in using the password {v} for now",
        "the passphrase was {v}.",
        # command lines and credential files
        "mysql -u root -p{v} shop",
        "docker login -u deploy -p {v} registry.example.io",
        "docker login --username ci --password {v} ghcr.io",
        "machine api.example.org login alice password {v}",
        "db.internal:5432:shop:app:{v}",
        "passphrase = {v}",
        "export DB_PASSWORD='{v} and more words'",
    ],
    "secret": [
        "SECRET_KEY = '{v}'",
        "client_secret: {v}",
        "api_key={v}",
        '"access_token": "{v}"',
        "export AUTH_TOKEN={v}",
        'webhookSecret = "{v}"',
    ],
    "bearer-token": [
        "curl -H 'Authorization: Bearer {v}' https://api.test/v1",
        "Authorization: bearer {v}",
    ],
    "twilio-key": [
        "TWILIO_API_KEY_SID={v}",
        "the twilio key {v} is for SMS",
        "client = Client('{v}', secret)",
    ],
    "sendgrid-key": [
        "SENDGRID_API_KEY={v}",
        "use {v} to send the newsletter",
        "sg = SendGridAPIClient('{v}')",
    ],
    "huggingface-token": [
        "HF_TOKEN={v}",
        "huggingface-cli login --token {v}",
        "my hf token {v} (read only)",
    ],
    "gitlab-token": [
        "GITLAB_TOKEN={v}",
        "git clone https://oauth2:{v}@gitlab.example.com/a/b.git",
        "token {v}",
    ],
    "npm-token": ["//registry.npmjs.org/:_authToken={v}", "NPM_TOKEN={v}", "publish with {v}"],
    "pypi-token": ["TWINE_PASSWORD={v}", "password = {v}", "the pypi token is {v}"],
    "discord-token": ["DISCORD_BOT_TOKEN={v}", "client.run('{v}')", "the bot token {v} was reset"],
    "telegram-token": [
        "TELEGRAM_BOT_TOKEN={v}",
        "https://api.telegram.org/bot{v}/getMe",
        "bot token {v}",
    ],
    "slack-webhook": [
        "https://hooks.slack.com/services/{v}",
        "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/{v}",
        "post alerts to https://hooks.slack.com/services/{v} please",
    ],
    "azure-sas": [
        "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-01&sig={v}",
        "SAS: ?sv=2021-06-08&sr=c&sig={v}&se=2026-01-01",
        "BlobEndpoint=https://a.blob.core.windows.net/;SharedAccessSignature=sv=2020-08-04&sig={v}",
    ],
    "basic-auth": [
        "Authorization: Basic {v}",
        "curl -H 'Authorization: Basic {v}' https://api.test",
        '"Authorization": "Basic {v}"',
    ],
    "pin": [
        "my bank PIN is {v}",
        "PIN {v}",
        "the door code... no, the PIN: {v}",
        "card pin number {v} (don't share)",
    ],
}

SAMPLES_PER_KIND = 30


def _secrets() -> list[tuple[str, str, str]]:
    out = []
    for kind, make in _GENERATORS.items():
        contexts = _CONTEXTS[kind]
        for i in range(SAMPLES_PER_KIND):
            value = make()
            out.append((kind, contexts[i % len(contexts)].format(v=value), value))
    return out


SECRETS: list[tuple[str, str, str]] = _secrets()

# -- look-alikes -----------------------------------------------------------------------------------
_PROSE = [
    "The secret to good bread is patience and a hot oven.",
    "She told me the password policy changed: passwords now need twelve characters.",
    "Remember that the key insight was the token bucket algorithm, not the cache.",
    "Tokens: the model counts about four characters per token in English text.",
    "He keeps his keys in the blue bowl by the door; the spare key is under the mat.",
    "Authentication failed because the token expired; re-login fixed it.",
    "The user prefers dark mode and wants answers in French when possible.",
    "Meeting notes: discuss the API key rotation policy with the security team on Friday.",
    "I bypassed the monkey patch by importing the module earlier.",
    "Secret Santa this year: budget is 30 euros, draw on December 1st.",
    "key takeaways: ship smaller PRs, write the test first, measure before optimising",
    "The author: Jane Austen. The title: Pride and Prejudice.",
    "Passwords should be stored with argon2id, never in plain text.",
    "skills: python, sk-learn, pandas, numpy; interests: climbing",
    "Use `sk-` prefixed keys only from the environment, never hard-code them.",
    "OAuth flow: redirect, consent, code exchange, then the access token arrives.",
    "password: ******** (hidden)",
    "Ask-and-tell: task-runner-orchestrator-service-for-nightly-builds is its name.",
    "The Bearer of bad news arrived at noon.",
    "primary key: the user_id column; foreign key: orders.user_id",
    # prose about passwords, keys and PINs that holds none (the look-alikes of the prose rules)
    "I forgot my password again",
    "I forgot my password again and had to reset it twice this week.",
    "The password is wrong, try the other one.",
    "the wifi password is on the fridge",
    "The password is too short: it needs at least twelve characters.",
    "my password is the same as before",
    "The password was changed yesterday by IT.",
    "Your password is case sensitive.",
    "The secret is to let the dough rest overnight.",
    "The secret was out by Monday morning.",
    "with secret ingredients from her grandmother",
    "She logged in using the password manager on her phone.",
    "use the password reset link in the email",
    "The token is valid for one hour.",
    "my api key is in the environment, not in the code",
    "The PIN is printed on the back of the letter.",
    "I need a new PIN for my card.",
    "pin the version to 1.82.6 in the constraints",
    "PIN code reset requested on 2026-11-20",
    "Spinning up 1234 workers took 3 minutes.",
    "Call me at 4pm; my passport number is on file.",
    "The passcode is whatever you set during setup.",
    "He said the password was easy to guess.",
    "the password is stored in 1Password, ask Sam",
    "I keep my passwords in a notebook, which is probably a bad idea.",
    "the wifi password is written on the router",
    "my password is expired, can you help me renew it?",
    "Authorization: Basic realm required, see the docs",
    "The meeting room PIN pad is broken.",
    "pinned 2 messages in #general",
]
_CODE = [
    'api_key = os.environ["OPENAI_API_KEY"]',
    "password = getpass.getpass()",
    "token = self._refresh_token()",
    "api_key = settings.OPENAI_API_KEY",
    "SECRET_KEY = env('DJANGO_SECRET_KEY')",
    "max_tokens: 8192",
    "token_count = 123456789",
    "cache_key = f'user:{user_id}:profile'",
    "id = models.AutoField(primary_key=True)",
    "headers = {'Authorization': f'Bearer {token}'}",
    'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.test/user',
    "password: ${DB_PASSWORD}",
    "api_key: <your-api-key>",
    "OPENAI_API_KEY=your_openai_key_here",
    "DATABASE_URL=postgres://user:password@localhost:5432/app",
    "for key, value in sorted(mapping.items()):",
    "keyboard_layout = 'us-intl'",
    "def get_secret(name: str) -> str:",
    "token_type: bearer",
    "auth: required",
    "public_key = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA0vx7agoebGcQSuuPiLJX'",
    (
        "-----BEGIN PUBLIC"
        " KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END"
        " PUBLIC KEY-----"
    ),
    (
        "-----BEGIN"
        " CERTIFICATE-----\n"
        "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n"
        "-----END"
        " CERTIFICATE-----"
    ),
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host",
    "key_id: 7f3e2a",
    "password_min_length = 12",
    "passwordless login is enabled via magic links",
    "token = None",
    "secret = load_secret(path='/run/secrets/db')",
    "auth_header = request.headers.get('Authorization', '')",
    "arn:aws:iam::123456789012:role/AdminRole",
    (
        "image:"
        " ghcr.io/acme/app@sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"
    ),
    (
        "integrity"
        " sha512-Pd9lUbhDJ0bKRzD2w6QqNxgGLn8yRkAq0PkGqDqk0Yvj8Z"
        "qE8kK3TSkQkL1k2i1D9G6pH2u7o2eN3nLNnw=="
    ),
    "version: 1.82.6, python_requires >= 3.11, node 20.11.1",
    "Call 555-0100-2233 or email support@example.com",
    "passes = [p for p in passes if p.ok]",
    "token_limit := 4096",
    "RegEnumKey = win32api.RegEnumKey",
    "mysql -u root -p shop < dump.sql",
    "docker login -u ci --password-stdin ghcr.io",
    "machine api.example.org login alice",
    "localhost:5432:*:postgres:*",
    'export DB_PASSWORD="$(vault read -field=pw secret/db)"',
    "hf_hub_download(repo_id='gpt2', filename='config.json')",
    "npm_config_registry=https://registry.npmjs.org/",
    "SKIP_TESTS_ON_CI_FOR_THIS_VERY_LONG_FLAG_NAME_01",
    "https://hooks.slack.com/services/ is the webhook base URL",
    "url = f'{base}?sv={version}&sig={signature}'",
    "time 12:34:56, port 5432, pid 4321",
    '"placeholder": "-----BEGIN RSA PRIVATE KEY-----\\n...\\n-----END RSA PRIVATE KEY-----"',
]
_PATHS_URLS = [
    "/home/alice/projects/reverie/memory/MEMORY.md",
    "C:\\Users\\alice\\AppData\\Roaming\\reverie\\config.json",
    "~/.ssh/id_rsa is the private key path, do not print it",
    "https://github.com/acme/reverie/blob/main/reverie/security/secrets.py#L42",
    "https://docs.python.org/3/library/secrets.html?highlight=token#secrets.token_hex",
    "https://user@example.com/repo.git",
    "ssh://git@github.com:acme/reverie.git",
    "postgres://localhost:5432/reverie_test",
    "http://[::1]:8080/v1/chat/completions",
    "see https://example.com/login?next=/home&token_hint=none",
]


def _benign() -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = [("prose", t) for t in _PROSE]
    out += [("code", t) for t in _CODE]
    out += [("path-or-url", t) for t in _PATHS_URLS]
    for i in range(60):
        sha = hashlib.sha1(f"commit {i}".encode()).hexdigest()
        out.append(
            (
                "git-sha",
                _rng.choice(
                    [
                        f"commit {sha}",
                        f"Reverted {sha[:12]} and {sha}",
                        f"git show {sha}",
                        f"sha: {sha}",
                    ]
                ),
            )
        )
    for _ in range(60):
        u = str(uuid.UUID(int=_rng.getrandbits(128), version=4))
        out.append(
            (
                "uuid",
                _rng.choice(
                    [f"request_id={u}", f"session {u} started", f'"id": "{u}"', f"trace-id: {u}"]
                ),
            )
        )
    for i in range(40):
        digest = hashlib.sha256(f"file {i}".encode()).hexdigest()
        out.append(
            (
                "sha256",
                _rng.choice(
                    [f"sha256sum: {digest}  data.tar.gz", f"checksum {digest}", f'etag: "{digest}"']
                ),
            )
        )
    words = _PROSE + _CODE
    for _ in range(40):
        data = base64.b64encode(" ".join(_rng.sample(words, 3)).encode()).decode()
        out.append(
            (
                "base64",
                _rng.choice(
                    [f"data = '{data}'", f"payload: {data}", f"data:text/plain;base64,{data}"]
                ),
            )
        )
    for _ in range(20):
        out.append(
            (
                "base64-image",
                "data:image/png;base64," + base64.b64encode(_rng.randbytes(120)).decode(),
            )
        )
    return out


BENIGN: list[tuple[str, str]] = _benign()


@dataclass
class Rates:
    detected: int
    secrets: int
    false_positives: int
    benign: int
    per_kind: dict[str, tuple[int, int]]
    missed: list[tuple[str, str]]
    flagged: list[tuple[str, str]]

    @property
    def detection_rate(self) -> float:
        return self.detected / self.secrets

    @property
    def false_positive_rate(self) -> float:
        return self.false_positives / self.benign


def measure() -> Rates:
    from reverie.security.secrets import scan

    per_kind: dict[str, list[int]] = {}
    detected = 0
    missed = []
    for kind, text, value in SECRETS:
        at = text.index(value)
        hit = any(m.start <= at and m.end >= at + len(value) for m in scan(text))
        counts = per_kind.setdefault(kind, [0, 0])
        counts[1] += 1
        if hit:
            counts[0] += 1
            detected += 1
        else:
            missed.append((kind, text))
    flagged = [(label, text) for label, text in BENIGN if scan(text)]
    return Rates(
        detected,
        len(SECRETS),
        len(flagged),
        len(BENIGN),
        {k: (v[0], v[1]) for k, v in per_kind.items()},
        missed,
        flagged,
    )


if __name__ == "__main__":
    r = measure()
    print(f"detection: {r.detected}/{r.secrets} = {r.detection_rate:.1%}")
    print(f"false positives: {r.false_positives}/{r.benign} = {r.false_positive_rate:.1%}")
    for kind, (hit, total) in r.per_kind.items():
        print(f"  {kind:18} {hit}/{total}")
    for kind, text in r.missed:
        print("MISSED", kind, repr(text[:120]))
    for label, text in r.flagged:
        print("FLAGGED", label, repr(text[:120]))
