from agentcompass._cli.main import main

raise SystemExit(main())
