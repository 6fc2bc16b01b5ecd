"""Root URLs: the agent API under /api/v1 (docs at /api/docs), the Memory UI at /."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, JsonResponse
from django.urls import include, path

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
    path("", include("graphui.urls")),
]
