"""AgentDojo (workspace, travel, banking, slack): tool-use tasks under prompt injection, run and scored by the
``agentdojo`` package itself.

The suites, their environments, tools, user and injection tasks, attacks, defenses, pipeline elements and the
``utility`` / ``security`` functions all come from the installed package at run time; this package only joins the
package's pipeline to an agentcompass conversation (the agent takes the place of the pipeline's LLM element)."""
