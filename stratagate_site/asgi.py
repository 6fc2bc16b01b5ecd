"""ASGI entry point: HTTP through Django's WSGI handler on a thread pool (http_bridge, static files
through Django's ASGI handler), websockets through channels (graphui.routing)."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stratagate_site.settings")
django.setup(set_prefix=False)

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from graphui.routing import websocket_urlpatterns  # noqa: E402
from stratagate_site.http_bridge import WsgiOverAsgi  # noqa: E402

application = ProtocolTypeRouter(
    {
        # Django's static handler awaits any ASGI app; its stub names its own handler class.
        "http": ASGIStaticFilesHandler(
            WsgiOverAsgi(threads=settings.STRATAGATE_HTTP_THREADS)  # type: ignore[arg-type]
        ),
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
