"""What the harnesses of published agent programs (``claude_code``, ``codex``, ``opencode``, ``qwen_code``, ``pi``,
``cline``, ``kilo``...) share.

- :mod:`.registry`: a package fetched on the host by exact version from the npm registry (its tarball checked
  against the registry's ``dist.integrity`` / ``shasum``) or from PyPI (``pip download``, which checks the index's
  hashes), unpacked once into ``<data_dir>/agents/``;
- :mod:`.platform`: the environment's operating system, architecture and C library (glibc or musl), read once per
  image, which pick the build to deliver;
- :mod:`.delivery`: the cache directory mounted read-only into every environment (``/opt/agentcompass``), so a
  build is unpacked once per machine and never copied per attempt;
- :mod:`.runner`: the agent's command run in the task's workdir within the task's agent timeout (the process tree
  killed on timeout or cancellation), its native log saved in the attempt directory;
- :mod:`.config`: the parameters every such harness takes (``version``, ``model_params``, ``max_turns``,
  ``extra_args``, ``env``);
- :mod:`.options`: each ``model_params`` key declared once (``AgentOption``: the flag, ``-c`` override, variable or
  setting it becomes, its allowed values and doc), from which the checks, command lines and docs come;
- :mod:`.atif`: the ATIF trajectory the viewer and ``export harbor`` read.
"""
