// What analysts' own Cypher may contain: the grammar rules a read query is built of, the functions
// it may call, and words for what is refused. Anything not listed here is refused (docs/graph.md,
// "How analysts' own Cypher is kept in their scope"). Rule names are those of Neo4j's Cypher
// grammar as shipped by @neo4j-cypher/language-support.

// Parameters the server sets from the analyst's session on every run; an analyst cannot give them.
export const SCOPE_PARAMETERS = ['tenantId', 'mode'] as const;

// The rules of a read query: clauses, patterns, expressions and the names inside them.
export const ALLOWED_RULES = new Set([
  // one statement, no options
  'statementsOrCommands', 'statementOrCommand', 'preparsedStatement', 'statement', 'queryWithLocalDefinitions', 'nextStatement',
  'regularQuery', 'union', 'singleQuery', 'clause',
  // clauses
  'matchClause', 'matchMode', 'withClause', 'unwindClause', 'returnClause', 'returnBody', 'returnItems', 'returnItem',
  'orderBy', 'orderItem', 'ascToken', 'descToken', 'skip', 'limit', 'whereClause', 'subqueryClause', 'subqueryScope',
  // patterns
  'patternList', 'pattern', 'anonymousPattern', 'patternElement', 'pathPatternNonEmpty', 'nodePattern', 'relationshipPattern',
  'parenthesizedPath', 'quantifier', 'pathLength', 'leftArrow', 'arrowLine', 'rightArrow', 'shortestPathPattern',
  'pathPatternPrefix', 'nonNegativeIntegerSpecification', 'pathMode', 'pathToken', 'groupToken', 'properties',
  'labelExpression', 'labelExpression4', 'labelExpression3', 'labelExpression2', 'labelExpression1', 'dynamicAnyAllExpression',
  // expressions
  'expression', 'expression11', 'expression10', 'expression9', 'expression8', 'expression7', 'expression6', 'expression5',
  'expression4', 'expression3', 'expression2', 'expression1', 'comparisonExpression6', 'normalForm', 'postFix', 'property',
  'dynamicProperty', 'literal', 'numberLiteral', 'signedIntegerLiteral', 'stringLiteral', 'listLiteral', 'map', 'parameter',
  'parameterName', 'caseExpression', 'caseAlternative', 'extendedCaseExpression', 'extendedCaseAlternative', 'extendedWhen',
  'countStar', 'existsExpression', 'countExpression', 'collectExpression', 'mapProjection', 'mapProjectionElement',
  'listComprehension', 'patternComprehension', 'reduceExpression', 'listItemsPredicate', 'normalizeFunction', 'trimFunction',
  'patternExpression', 'shortestPathExpression', 'parenthesizedExpression', 'functionInvocation', 'functionArgument',
  'functionName', 'namespace', 'type', 'typePart', 'typeName', 'typeNullability', 'typeListSuffix',
  // names
  'variable', 'propertyKeyName', 'symbolicNameString', 'symbolicVariableNameString', 'escapedSymbolicNameString',
  'escapedSymbolicVariableNameString', 'unescapedSymbolicNameString', 'unescapedSymbolicVariableNameString',
  'unescapedSymbolicNameString_', 'preparserKeyword',
]);

// Words for the refusals an analyst is likely to meet; any other rule is refused by its name.
export const REFUSED_RULES: Record<string, string> = {
  preparserOption: 'EXPLAIN, PROFILE and CYPHER options',
  consoleCommand: 'console commands',
  command: 'administration commands (SHOW, CREATE USER, …)',
  composableCommandClauses: 'administration commands (SHOW, TERMINATE, …)',
  useClause: 'USE (the graph is chosen by the server)',
  createClause: 'CREATE (analysts read only)',
  insertClause: 'INSERT (analysts read only)',
  mergeClause: 'MERGE (analysts read only)',
  deleteClause: 'DELETE (analysts read only)',
  setClause: 'SET (analysts read only)',
  removeClause: 'REMOVE (analysts read only)',
  foreachClause: 'FOREACH (analysts read only)',
  callClause: 'procedure calls',
  loadCSVClause: 'LOAD CSV',
  subqueryInTransactionsParameters: 'CALL { … } IN TRANSACTIONS',
  hint: 'planner hints (USING …)',
  localDefinition: 'local definitions (DEFINE)',
  finishClause: 'FINISH',
  when: 'conditional queries (WHEN)',
  filterClause: 'FILTER', letClause: 'LET', forListClause: 'FOR',
  orderBySkipLimitClause: 'ORDER BY, SKIP or LIMIT as a clause of its own',
  searchClause: 'SEARCH',
};

// Functions without side effects that reach no data but what the query already bound. No
// namespaced function but these (db.*, apoc.*, gds.* and the like are refused).
export const ALLOWED_FUNCTIONS = new Set([
  'abs', 'acos', 'asin', 'atan', 'atan2', 'avg', 'ceil', 'char_length', 'character_length', 'coalesce', 'collect', 'cos',
  'cot', 'count', 'date', 'datetime', 'degrees', 'duration', 'e', 'elementid', 'endnode', 'exp', 'floor', 'haversin',
  'head', 'id', 'isempty', 'isnan', 'keys', 'labels', 'last', 'left', 'length', 'localdatetime', 'localtime', 'log',
  'log10', 'lower', 'ltrim', 'max', 'min', 'nodes', 'nullif', 'percentilecont', 'percentiledisc', 'pi', 'point',
  'properties', 'radians', 'rand', 'range', 'relationships', 'replace', 'reverse', 'right', 'round', 'rtrim', 'btrim',
  'sign', 'sin', 'size', 'split', 'sqrt', 'startnode', 'stdev', 'stdevp', 'substring', 'sum', 'tail', 'tan', 'time',
  'timestamp', 'toboolean', 'tobooleanlist', 'tobooleanornull', 'tofloat', 'tofloatlist', 'tofloatornull', 'tointeger',
  'tointegerlist', 'tointegerornull', 'tolower', 'tostring', 'tostringlist', 'tostringornull', 'toupper', 'trim', 'type',
  'upper', 'valuetype', 'randomuuid',
  'date.truncate', 'date.statement', 'date.transaction', 'date.realtime', 'datetime.truncate', 'datetime.fromepoch',
  'datetime.fromepochmillis', 'datetime.statement', 'datetime.transaction', 'datetime.realtime', 'localdatetime.truncate',
  'localtime.truncate', 'time.truncate', 'duration.between', 'duration.indays', 'duration.inmonths', 'duration.inseconds',
  'point.distance', 'point.withinbbox',
]);
