"""Memory UI URLs. Every view is a URL: filters, pages and tabs live in the query string, so any
view can be linked and reloaded. All of them need a login (graphui.middleware.UILoginRequired)."""

from django.urls import path, register_converter
from django.urls.converters import PathConverter

from graphui.views import (
    audit,
    connect,
    event_actions,
    events,
    graph,
    health,
    imports,
    namespaces,
    processing,
    search,
    sessions,
    settings,
    tokens,
)


class SessionIdConverter(PathConverter):
    """Any stored session id: "/" and line breaks included (`path` stops at a line break, and
    one such id would break reversing its link, taking the whole session list down)."""

    regex = r"[\s\S]+"


register_converter(SessionIdConverter, "session_id")

app_name = "graphui"

urlpatterns = [
    path("", namespaces.namespace_list, name="namespaces"),
    path("switch/", namespaces.namespace_switch, name="switch"),
    path("settings/", settings.settings_page, name="settings"),
    path("settings/test-model/", settings.model_test, name="settings_test_model"),
    path("tokens/", tokens.tokens_page, name="tokens"),
    path("tokens/<int:token_id>/revoke/", tokens.token_revoke_page, name="token_revoke"),
    path("ns/<str:ns>/", health.health_page, name="health"),
    path("ns/<str:ns>/connect/", connect.connect_page, name="connect"),
    path("ns/<str:ns>/sessions/", sessions.session_list_page, name="sessions"),
    path("ns/<str:ns>/sessions/<session_id:session_id>", sessions.session_page, name="session"),
    path("ns/<str:ns>/blocks/<int:block_id>/", sessions.block_link, name="block"),
    path("ns/<str:ns>/blocks/<int:block_id>/expand/", sessions.block_expand_action, name="expand"),
    path("ns/<str:ns>/messages/<int:message_id>/", sessions.message_link, name="message"),
    path("ns/<str:ns>/events/", events.timeline_page, name="timeline"),
    path("ns/<str:ns>/events/<int:event_id>/", events.event_page, name="event"),
    path("ns/<str:ns>/search/", search.search_page, name="search"),
    path("ns/<str:ns>/graph/", graph.graph_page, name="graph"),
    path("ns/<str:ns>/graph/data.json", graph.graph_data, name="graph_data"),
    path("ns/<str:ns>/graph/nodes/<int:node_id>/", graph.node_page, name="node"),
    path("ns/<str:ns>/imports/", imports.import_list_page, name="imports"),
    path("ns/<str:ns>/imports/<int:import_id>/", imports.import_page, name="import"),
    path(
        "ns/<str:ns>/imports/<int:import_id>/status.json",
        imports.import_status_json,
        name="import_status",
    ),
    path(
        "ns/<str:ns>/imports/<int:import_id>/commit/",
        imports.import_commit_action,
        name="import_commit",
    ),
    path("ns/<str:ns>/imports/<int:import_id>/undo/", imports.import_undo_page, name="import_undo"),
    path("ns/<str:ns>/audit/", audit.receipt_list_page, name="audit"),
    path("ns/<str:ns>/audit/<int:receipt_pk>/", audit.receipt_page, name="receipt"),
    path("ns/<str:ns>/events/<int:event_id>/usage/", audit.event_usage_page, name="event_usage"),
    path(
        "ns/<str:ns>/events/<int:event_id>/<str:action>/",
        event_actions.event_action_page,
        name="event_action",
    ),
    path("ns/<str:ns>/processing/", processing.processing_page, name="processing"),
    path("ns/<str:ns>/jobs/<int:job_id>/retry/", processing.job_retry_action, name="job_retry"),
    path(
        "ns/<str:ns>/jobs/retry-failed/",
        processing.jobs_retry_failed_action,
        name="jobs_retry_failed",
    ),
]
