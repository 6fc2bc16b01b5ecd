"""Models, one module per domain, re-exported here."""

from memory.models.blocks import Block, BlockStatus, BlockView, LiftedBy, ViewSource
from memory.models.conversation import IngestReceipt, Message, MessageRole, Session, Turn
from memory.models.diagnostics import ModelCall
from memory.models.events import (
    AdminAction,
    Event,
    EventMention,
    EventOrigin,
    EventRelation,
    EventStatus,
    RelationKind,
    TemporalStatus,
)
from memory.models.graph import GraphEdge, GraphFact, GraphItemStatus, GraphNode, NodeType
from memory.models.imports import ImportAction, ImportBatch, ImportCandidate, ImportStatus
from memory.models.jobs import JobKind, JobStatus, ProcessingJob
from memory.models.namespaces import (
    ROLE_RANK,
    AgentToken,
    Namespace,
    NamespaceGrant,
    Role,
    TokenScope,
)
from memory.models.proxy import (
    ExchangeState,
    ProxyCounter,
    ProxyExchange,
    ProxyProtocol,
    ProxySession,
    ProxySystemPrompt,
)
from memory.models.retrieval import (
    Activation,
    Assessment,
    BatchItem,
    BatchStatus,
    RefKind,
    RetrievalBatch,
    UsageItem,
    UsageReceipt,
)
from memory.models.settings import MemorySettings

__all__ = [
    "ROLE_RANK",
    "Activation",
    "AdminAction",
    "AgentToken",
    "Assessment",
    "BatchItem",
    "BatchStatus",
    "Block",
    "BlockStatus",
    "BlockView",
    "Event",
    "EventMention",
    "EventOrigin",
    "EventRelation",
    "EventStatus",
    "ExchangeState",
    "GraphEdge",
    "GraphFact",
    "GraphItemStatus",
    "GraphNode",
    "ImportAction",
    "ImportBatch",
    "ImportCandidate",
    "ImportStatus",
    "IngestReceipt",
    "JobKind",
    "JobStatus",
    "LiftedBy",
    "MemorySettings",
    "Message",
    "MessageRole",
    "ModelCall",
    "Namespace",
    "NamespaceGrant",
    "NodeType",
    "ProcessingJob",
    "ProxyCounter",
    "ProxyExchange",
    "ProxyProtocol",
    "ProxySession",
    "ProxySystemPrompt",
    "RefKind",
    "RelationKind",
    "RetrievalBatch",
    "Role",
    "Session",
    "TemporalStatus",
    "TokenScope",
    "Turn",
    "UsageItem",
    "UsageReceipt",
    "ViewSource",
]
