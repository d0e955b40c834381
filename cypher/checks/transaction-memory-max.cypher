// transaction-memory-max: Neo4j's cap on one transaction's memory, which bounds an analyst's query
// (db.memory.transaction.max; "0B" means none). `doorman graph check` reports it.
// Parameters: none. Returns value.
SHOW SETTINGS YIELD name, value WHERE name = 'db.memory.transaction.max'
RETURN value
