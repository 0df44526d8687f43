"""``plaintext_problems``, every problem written out (plan/plaintext_secrets.py).

tests/inputs/test_plaintext_secrets.py checks which paths are refused; here the whole
problem list: the order, each message, the key the fix names, and that a path is
reported once. The key pair is AWS's documented example
(https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html:
access key id ``AKIAIOSFODNN7EXAMPLE``, secret ``wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY``).
"""

from __future__ import annotations

from gpu_fabric.errors import Problem
from gpu_fabric.plan.plaintext_secrets import plaintext_problems

KEY_ID = "AKIAIOSFODNN7EXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
AWS_SECRET = "an AWS secret access key (40 characters beside an access key id)"
PASSWORD = "a credential (a kubeconfig's keys or tokens, or a password)"


def _how(key: str) -> str:
    return (f'store it encrypted instead: pulumi config set --secret {key} "$(cat FILE)" '
            f"(or --secret {key} VALUE), and remove the plain value")


def test_a_key_pair_in_a_mapping_names_the_top_key_in_the_fix() -> None:
    assert plaintext_problems({"team:aws": {"id": KEY_ID, "secret": SECRET}}) == [
        Problem("team:aws.id",
                f"looks like an access token in plain text; a stack file is committed, so "
                f"{_how('team:aws')}"),
        Problem("team:aws.secret", f"looks like {AWS_SECRET} in plain text; {_how('team:aws')}"),
    ]


def test_a_key_pair_in_an_env_list_is_reported_once() -> None:
    # The list's entries are read beside each other and again one by one: one problem.
    problems = plaintext_problems({"team:env": [{"name": KEY_ID, "value": SECRET}]})
    assert [p.path for p in problems] == ["team:env[0].name", "team:env[0].value"]
    assert problems[1].message == f"looks like {AWS_SECRET} in plain text; {_how('team:env')}"


def test_a_secret_already_refused_by_its_name_is_not_refused_again() -> None:
    problems = plaintext_problems({"team:aws": {"id": KEY_ID, "secretKey": SECRET}})
    assert problems[1:] == [Problem(
        "team:aws.secretKey",
        f"looks like {PASSWORD} in plain text; a stack file is committed, so {_how('team:aws')}",
    )]


def test_every_key_is_checked_after_a_credential_named_one() -> None:
    assert plaintext_problems({"team:token": "abc", "team:note": "password: x"}) == [
        Problem("team:token", f"is a credential-named key in plain text; {_how('team:token')}"),
        Problem("team:note",
                f"looks like {PASSWORD} in plain text; a stack file is committed, so "
                f"{_how('team:note')}"),
    ]
