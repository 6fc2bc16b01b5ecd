import pytest

from memory.models import Message, ProxyExchange, Turn
from tests.fakes.model_upstream import Answer


@pytest.mark.django_db(transaction=True)
def test_openai_round_trip(proxy, upstream):
    upstream.script(Answer("Hello there!"))
    client = proxy.openai()
    reply = client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": "Hi, I use PostgreSQL."}]
    )
    assert reply.choices[0].message.content == "Hello there!"
    proxy.settle()
    print(upstream.last.headers, upstream.last.json)
    print(list(Message.objects.values_list("role", "content")))
    print(list(ProxyExchange.objects.values()))
    assert Turn.objects.count() == 1
