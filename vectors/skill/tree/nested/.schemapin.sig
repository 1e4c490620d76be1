{"not": "excluded: only the top-level .schemapin.sig is"}
