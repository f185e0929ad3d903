// Adds block-coverage probes to a compiled ES module, with TypeScript's own
// parser and printer: every function body, both arms of every `if` (an empty
// `else` is added), loop bodies, `case` clauses, `catch` blocks, both arms of
// `?:` and the right side of `&&`, `||` and `??` get `COUNTERS[id]++`.
// V8's own block coverage (node:inspector precise coverage) sees the same
// blocks but costs milliseconds per snapshot; a counter costs nanoseconds, so
// the fuzzer can read the map after every input.
import ts from 'typescript';

/** The global the probes write to: a Uint32Array the campaign creates before loading instrumented modules. */
export const COVERAGE_GLOBAL = '__lanternaFuzzCoverage';

export interface InstrumentedModule {
  readonly code: string;
  /** Probe ids used: firstProbe .. firstProbe + probes - 1. */
  readonly probes: number;
  /** The source line (1-based) of each probe's block, in id order. */
  readonly lines: readonly number[];
}

export function instrumentModule(source: string, fileName: string, firstProbe: number): InstrumentedModule {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const lines: number[] = [];
  const counters = ts.factory.createUniqueName('coverage');

  const transformer: ts.TransformerFactory<ts.SourceFile> = (context) => {
    const f = context.factory;
    /** A probe for the block that starts at `at` (a node of the original tree). */
    const probe = (at: ts.Node): ts.Expression => {
      lines.push(file.getLineAndCharacterOfPosition(at.getStart(file)).line + 1);
      return f.createPostfixIncrement(f.createElementAccessExpression(counters, f.createNumericLiteral(firstProbe + lines.length - 1)));
    };
    const probeStatement = (at: ts.Node): ts.Statement => f.createExpressionStatement(probe(at));
    const probed = (expression: ts.Expression, at: ts.Node): ts.Expression =>
      f.createParenthesizedExpression(f.createComma(probe(at), expression));
    const block = (statement: ts.Statement, at: ts.Node): ts.Block =>
      ts.isBlock(statement)
        ? f.updateBlock(statement, [probeStatement(at), ...statement.statements])
        : f.createBlock([probeStatement(at), statement], true);
    const body = <T extends ts.Block | undefined>(node: T, at: ts.Node): T =>
      (node === undefined ? node : f.updateBlock(node, [probeStatement(at), ...node.statements])) as T;

    // `node` is the original (with positions), `child` the same node with its children visited.
    const visit = (node: ts.Node): ts.Node => {
      const child = ts.visitEachChild(node, visit, context);
      if (ts.isIfStatement(child) && ts.isIfStatement(node)) {
        const otherwise = child.elseStatement ? block(child.elseStatement, node.elseStatement ?? node) : f.createBlock([probeStatement(node)]);
        return f.updateIfStatement(child, child.expression, block(child.thenStatement, node.thenStatement), otherwise);
      }
      if (ts.isIterationStatement(node, false)) {
        const at = node.statement;
        if (ts.isForStatement(child)) return f.updateForStatement(child, child.initializer, child.condition, child.incrementor, block(child.statement, at));
        if (ts.isForOfStatement(child)) return f.updateForOfStatement(child, child.awaitModifier, child.initializer, child.expression, block(child.statement, at));
        if (ts.isForInStatement(child)) return f.updateForInStatement(child, child.initializer, child.expression, block(child.statement, at));
        if (ts.isWhileStatement(child)) return f.updateWhileStatement(child, child.expression, block(child.statement, at));
        if (ts.isDoStatement(child)) return f.updateDoStatement(child, block(child.statement, at), child.expression);
      }
      if (ts.isCaseClause(child)) return f.updateCaseClause(child, child.expression, [probeStatement(node), ...child.statements]);
      if (ts.isDefaultClause(child)) return f.updateDefaultClause(child, [probeStatement(node), ...child.statements]);
      if (ts.isCatchClause(child)) return f.updateCatchClause(child, child.variableDeclaration, body(child.block, node));
      if (ts.isFunctionDeclaration(child)) {
        return f.updateFunctionDeclaration(child, child.modifiers, child.asteriskToken, child.name, child.typeParameters, child.parameters, child.type, body(child.body, node));
      }
      if (ts.isFunctionExpression(child)) {
        return f.updateFunctionExpression(child, child.modifiers, child.asteriskToken, child.name, child.typeParameters, child.parameters, child.type, body(child.body, node));
      }
      if (ts.isMethodDeclaration(child)) {
        return f.updateMethodDeclaration(child, child.modifiers, child.asteriskToken, child.name, child.questionToken, child.typeParameters, child.parameters, child.type, body(child.body, node));
      }
      if (ts.isConstructorDeclaration(child)) return f.updateConstructorDeclaration(child, child.modifiers, child.parameters, body(child.body, node));
      if (ts.isGetAccessorDeclaration(child)) {
        return f.updateGetAccessorDeclaration(child, child.modifiers, child.name, child.parameters, child.type, body(child.body, node));
      }
      if (ts.isSetAccessorDeclaration(child)) return f.updateSetAccessorDeclaration(child, child.modifiers, child.name, child.parameters, body(child.body, node));
      if (ts.isClassStaticBlockDeclaration(child)) return f.updateClassStaticBlockDeclaration(child, body(child.body, node));
      if (ts.isArrowFunction(child)) {
        const arrowBody = ts.isBlock(child.body) ? body(child.body, node) : probed(child.body, node);
        return f.updateArrowFunction(child, child.modifiers, child.typeParameters, child.parameters, child.type, child.equalsGreaterThanToken, arrowBody);
      }
      if (ts.isConditionalExpression(child) && ts.isConditionalExpression(node)) {
        return f.updateConditionalExpression(child, child.condition, child.questionToken, probed(child.whenTrue, node.whenTrue), child.colonToken, probed(child.whenFalse, node.whenFalse));
      }
      if (ts.isBinaryExpression(child) && ts.isBinaryExpression(node)) {
        const operator = child.operatorToken.kind;
        if (operator === ts.SyntaxKind.AmpersandAmpersandToken || operator === ts.SyntaxKind.BarBarToken || operator === ts.SyntaxKind.QuestionQuestionToken) {
          return f.updateBinaryExpression(child, child.left, child.operatorToken, probed(child.right, node.right));
        }
      }
      return child;
    };

    return (sourceFile) => {
      const visited = ts.visitEachChild(sourceFile, visit, context);
      // `const coverage = globalThis.__lanternaFuzzCoverage;` after the imports (which are hoisted anyway).
      const prologue = f.createVariableStatement(
        undefined,
        f.createVariableDeclarationList(
          [f.createVariableDeclaration(counters, undefined, undefined, f.createPropertyAccessExpression(f.createIdentifier('globalThis'), COVERAGE_GLOBAL))],
          ts.NodeFlags.Const,
        ),
      );
      const imports = visited.statements.filter((statement) => ts.isImportDeclaration(statement));
      const rest = visited.statements.filter((statement) => !ts.isImportDeclaration(statement));
      return f.updateSourceFile(visited, [...imports, prologue, ...rest]);
    };
  };

  const result = ts.transform(file, [transformer]);
  const [transformed] = result.transformed;
  if (transformed === undefined) throw new Error(`instrumenting ${fileName} produced nothing`);
  const code = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed }).printFile(transformed);
  result.dispose();
  return { code, probes: lines.length, lines };
}
