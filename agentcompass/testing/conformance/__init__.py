"""Conformance suites: the plug-in contract of :mod:`agentcompass.interfaces` as plain pytest classes.

A plug-in's test module subclasses the suite of its kind and says how to build the thing under test; every
test of the suite then runs against it (``docs/plugins.md``)::

    from agentcompass.testing.conformance.environment import CommandEnvironmentSuite

    class TestMyEnvironment(CommandEnvironmentSuite):
        def make_provider(self, tmp_dir):
            return MyProvider(MyConfig(root=str(tmp_dir)), None)

==========================  ==================================================================================
module                      suites
==========================  ==================================================================================
``environment``             ``EnvironmentSuite`` (files, paths, confinement, close), ``FileEnvironmentSuite``
                            (no commands), ``CommandEnvironmentSuite`` (exec, timeouts, process trees, cwd, env)
``benchmark``               ``BenchmarkSuite``: load, sample_ids / limit / unknown ids, env_spec, oracle scores
                            1 and nop scores 0 on a subset (through ``run_evaluation``)
``harness``                 ``HarnessSuite`` (a run, its result, no model), ``ModelHarnessSuite`` (a scripted
                            conversation replayed, requests recorded, usage, trajectory, a limit)
``model``                   ``ModelClientSuite``: a protocol's round trip with usage over the scripted server,
                            tool calls, forks, typed errors
==========================  ==================================================================================

The suites need pytest (the ``test`` extra); nothing here is imported by the package itself.
"""
