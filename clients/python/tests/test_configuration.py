"""The configuration is checked when a client is made, sync or async: a mistake raises ValueError
saying what is wrong, before any request."""

from __future__ import annotations

import pytest

from doorman_client import AsyncDoormanClient, DoormanClient

GOOD_URL = "http://127.0.0.1:8080"

BAD_KEYS = [
    ("", "secret_key is missing"),
    ("pk_test_abc", "publishable key"),
    ("pk_live_abc", "publishable key"),
    ("sk_test_abc\n", "space or a line break"),
    (" sk_test_abc", "space or a line break"),
    ("sk_test_", "only its prefix"),
    ("sk_live_", "only its prefix"),
    ("sk_prod_abc", "must start sk_live_ or sk_test_"),
    ("whsec_abc", "must start sk_live_ or sk_test_"),
]

BAD_URLS = [
    ("", "base_url is missing"),
    ("   ", "base_url is missing"),
    ("127.0.0.1:8080", "start it with https://"),
    ("/v1", "not an absolute URL"),
    ("doorman.example", "not an absolute URL"),
    ("ftp://doorman.example", "http or https, not ftp"),
    ("https://user:pass@doorman.example", "credentials"),
    ("https://doorman.example/?x=1", "query or a fragment"),
    ("https://doorman.example/#top", "query or a fragment"),
    ("https://doorman.example:99999", "not a valid URL"),
    ("https://doorman .example", "space"),
    ("https://:8080", "no host"),
]


@pytest.mark.parametrize("client", [DoormanClient, AsyncDoormanClient])
@pytest.mark.parametrize(("key", "says"), BAD_KEYS)
def test_a_wrong_key_is_refused_with_what_is_wrong(client: type[DoormanClient] | type[AsyncDoormanClient], key: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        client(secret_key=key, base_url=GOOD_URL)


@pytest.mark.parametrize("client", [DoormanClient, AsyncDoormanClient])
@pytest.mark.parametrize(("url", "says"), BAD_URLS)
def test_a_wrong_base_url_is_refused_with_what_is_wrong(
    client: type[DoormanClient] | type[AsyncDoormanClient], url: str, says: str
) -> None:
    with pytest.raises(ValueError, match=says):
        client(secret_key="sk_test_abc", base_url=url)


def test_a_key_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(ValueError, match="secret_key is missing"):
        DoormanClient(secret_key=None, base_url=GOOD_URL)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("screen_timeout_ms", 0),
        ("timeout_ms", -1),
        ("ping_timeout_ms", 2.5),
        ("timeout_ms", True),
        ("max_retries", -1),
        ("max_retries", "2"),
    ],
)
def test_budgets_and_retries_are_checked(option: str, value: object) -> None:
    with pytest.raises(ValueError, match=option):
        DoormanClient(secret_key="sk_test_abc", base_url=GOOD_URL, **{option: value})  # type: ignore[arg-type]


def test_a_good_configuration_gives_the_mode_of_the_key() -> None:
    with DoormanClient(secret_key="sk_test_abc", base_url="https://doorman.example/prefix/") as test:
        assert test.mode == "test"
    with DoormanClient(secret_key="sk_live_abc", base_url="http://[::1]:8080", max_retries=0) as live:
        assert live.mode == "live"
    assert AsyncDoormanClient(secret_key="sk_live_abc", base_url=GOOD_URL).mode == "live"
