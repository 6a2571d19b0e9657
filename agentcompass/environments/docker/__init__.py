"""The ``docker`` environment: one container per attempt, driven through the Docker SDK (never the CLI).

``conf/environment/docker.yaml`` selects :class:`DockerProvider`; see ``provider.py`` (open, cleanup),
``images.py`` (pull / build / cache), ``environment.py`` (exec, files, close), ``execstream.py`` (the exec
wrapper and process-tree kill), ``tarsafe.py`` (confined archive extraction), and for multi-container tasks
``compose.py`` (a Docker Compose project per attempt), ``compose_cli.py`` (finding and running Compose v2) and
``compose_cleanup.py`` (removing what killed runs left).
The SDK is imported lazily: importing this package costs nothing.
"""

from agentcompass.environments.docker.config import DockerConfig
from agentcompass.environments.docker.environment import DockerEnvironment
from agentcompass.environments.docker.provider import DockerProvider

__all__ = ["DockerConfig", "DockerEnvironment", "DockerProvider"]
