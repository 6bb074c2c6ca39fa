from curator.cli import main

raise SystemExit(main())
