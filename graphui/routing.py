"""Websocket routes of the Memory UI."""

from django.urls import path

from graphui.consumers import NamespaceConsumer

websocket_urlpatterns = [
    path("ws/ns/<str:ns>/", NamespaceConsumer.as_asgi()),
]
