"""Root URLs: the agent API under /api/v1 (docs at /api/docs), the Memory UI at /."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, JsonResponse
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView
from django.views.i18n import set_language

from stratagate_site.api import api


def api_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    return JsonResponse(
        {"error": {"code": "not_found", "message": "No such API path.", "details": {}}},
        status=404,
    )


urlpatterns = [
    path("api/", api.urls),
    path("api/<path:path>", api_not_found),
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # The language switcher works on the login page too.
    path("i18n/setlang/", login_not_required(set_language), name="set_language"),
    path(
        "favicon.ico",
        login_not_required(RedirectView.as_view(url=static("graphui/favicon.svg"))),
    ),
    path("", include("graphui.urls")),
]
