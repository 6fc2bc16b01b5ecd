"""Memory UI URLs."""

from django.urls import path

from graphui.views import namespaces

app_name = "graphui"

urlpatterns = [
    path("", namespaces.namespace_list, name="namespaces"),
]
