raise SystemExit('EVIL-PLUGIN-LOADED')
