"""ASGI entry point: the model proxy under /proxy/ (proxy.app, natively async: it relays streams
as they arrive and notices a client that leaves), every other HTTP request through Django's WSGI
handler on a thread pool (http_bridge, static files through Django's ASGI handler), websockets
through channels (graphui.routing)."""

import os
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stratagate_site.settings")
django.setup(set_prefix=False)

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from graphui.routing import websocket_urlpatterns  # noqa: E402
from proxy.app import PREFIX as PROXY_PREFIX  # noqa: E402
from proxy.app import application as proxy_application  # noqa: E402
from stratagate_site.http_bridge import WsgiOverAsgi  # noqa: E402

# Django's static handler awaits any ASGI app; its stub names its own handler class.
django_http = ASGIStaticFilesHandler(
    WsgiOverAsgi(threads=settings.STRATAGATE_HTTP_THREADS)  # type: ignore[arg-type]
)


async def http(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["path"].startswith(PROXY_PREFIX):
        await proxy_application(scope, receive, send)
    else:
        await django_http(scope, receive, send)


application = ProtocolTypeRouter(
    {
        "http": http,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
