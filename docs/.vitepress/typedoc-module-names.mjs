// @ts-check
/**
 * A TypeDoc plugin that names each entry point's module after its import path: TypeDoc would name
 * them after their files (`http/public`), but a reader imports `@turnkit/adapters/http`.
 * The names come from the `moduleNames` option (import path → source file), which
 * ../typedoc.config.mjs computes from the packages' exports maps.
 */
import { resolve } from 'node:path';
import { Converter, ParameterType, ReflectionKind } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.options.addDeclaration({
    name: 'moduleNames',
    help: 'Import path of each entry point, by source file.',
    type: ParameterType.Mixed,
    defaultValue: {},
  });
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.kindOf(ReflectionKind.Module)) return;
    const file = context.getSymbolFromReflection(reflection)?.declarations?.[0]?.getSourceFile().fileName;
    if (!file) return;
    const names = /** @type {Record<string, string>} */ (app.options.getValue('moduleNames'));
    const match = Object.entries(names).find(([, source]) => resolve(source) === resolve(file));
    if (match) reflection.name = match[0];
  });
}
