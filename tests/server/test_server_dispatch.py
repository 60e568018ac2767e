"""Every client message has exactly one handler at the edge, chosen by its class: a message
added to the protocol without one fails here, not at the first client that sends it."""

from __future__ import annotations

import typing

import pytest

from nimmt import wire as P
from nimmt.server.edge.dispatch import BEFORE_HELLO, ROUTES, Dispatcher, _routes
from nimmt.server.people.accounts import ACCOUNT_MESSAGES
from nimmt.server.people.social import SOCIAL_MESSAGES


def client_messages() -> set[type]:
    """The classes of the protocol's union of client messages."""
    union, *_ = typing.get_args(P.ClientMessage)
    return set(typing.get_args(union))


def test_every_client_message_has_one_handler() -> None:
    every = client_messages()
    assert len(every) > 30
    assert set(ROUTES) == every
    assert every >= BEFORE_HELLO


def test_the_groups_of_messages_do_not_overlap() -> None:
    groups = [ACCOUNT_MESSAGES, SOCIAL_MESSAGES, P.TABLE_MESSAGES]
    assert sum(map(len, groups)) == len(frozenset().union(*groups))
    assert ROUTES[P.SignOut] is Dispatcher._account
    assert ROUTES[P.Follow] is Dispatcher._social
    assert ROUTES[P.PlayCard] is Dispatcher._at_table


def test_a_message_given_two_handlers_is_refused() -> None:
    with pytest.raises(AssertionError, match="Chat has two handlers"):
        _routes(([P.Chat], Dispatcher._at_table), ([P.Ping, P.Chat], Dispatcher._ping))
