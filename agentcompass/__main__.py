from agentcompass._cli.main import entry

entry()
