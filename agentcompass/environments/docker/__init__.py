"""The ``docker`` environment: one container per attempt, driven through the Docker SDK (never the CLI).

``conf/environment/docker.yaml`` selects :class:`DockerProvider`; see ``provider.py`` (open, cleanup),
``images.py`` (pull / build / cache), ``environment.py`` (exec, files, close), ``execstream.py`` (the exec
wrapper and process-tree kill) and ``tarsafe.py`` (confined archive extraction).
The SDK is imported lazily: importing this package costs nothing.
"""

from agentcompass.environments.docker.config import DockerConfig
from agentcompass.environments.docker.environment import DockerEnvironment
from agentcompass.environments.docker.provider import DockerProvider

__all__ = ["DockerConfig", "DockerEnvironment", "DockerProvider"]
