// ESLint flat config: typescript-eslint with type information over every TypeScript file of the
// project (src, test, bench, clients), plus import cycles. Layout is prettier's (npm run format), so
// no stylistic rule is enabled here. Each rule turned off or tuned says why beside it.
import js from '@eslint/js'
import { importX } from 'eslint-plugin-import-x'
import tseslint from 'typescript-eslint'
import { readdirSync } from 'node:fs'

// The layers of src/ (STYLE.md, Layout): app/ composes; platform/ knows no domain; events/ knows only
// platform/ and is used through its index.ts; decode/ is pure; a domain reaches another only through
// that domain's index.ts.
const LAYERS = ['app', 'platform', 'events']
const DOMAINS = readdirSync(new URL('./src/', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory() && !LAYERS.includes(d.name))
  .map((d) => d.name)
const layerZones = [
  { target: './src/platform', from: './src', except: ['./platform'], message: 'platform/ knows no domain (STYLE.md).' },
  {
    target: './src/events',
    from: './src',
    except: ['./events', './platform'],
    message: 'events/ builds on platform/ only.',
  },
  {
    target: './src/decode',
    from: './src',
    except: ['./decode'],
    message: 'decode/ is pure: it imports nothing of the app.',
  },
  ...DOMAINS.map((d) => ({
    target: `./src/${d}`,
    from: './src/app',
    message: 'Only app/ composes; a domain never imports it.',
  })),
  ...[...DOMAINS, 'app'].map((d) => ({
    target: `./src/${d}`,
    from: './src/events',
    except: ['./index.ts'],
    message: 'The outbox is used only through its face, src/events/index.ts.',
  })),
  ...DOMAINS.flatMap((d) =>
    DOMAINS.filter((o) => o !== d).map((o) => ({
      target: `./src/${d}`,
      from: `./src/${o}`,
      except: ['./index.ts'],
      message: `A domain uses another only through its index.ts (src/${o}/index.ts).`,
    })),
  ),
]

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', 'data/', 'clients/typescript/schema.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', '*.ts', 'bin/*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    settings: {
      // no-cycle follows imports into TypeScript files: they are parsed with typescript-eslint's parser,
      // and `./x.js` in an import resolves to `./x.ts` as it does for tsc (NodeNext).
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [importX.createNodeResolver({ extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      // Vocabularies are `as const` unions: a switch over one handles every member or ends in a
      // `never` default (STYLE.md), so a new member that is not handled fails here as well as in tsc.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // A module never reaches back into a module that imports it (directly or through others).
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // A `let` read by a closure before its one assignment (a signal handler installed first) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Off: Fastify plugins, hooks and interface implementations are `async` by contract (the
      // framework awaits them, and a thrown error becomes a rejection) whether or not they await.
      '@typescript-eslint/require-await': 'off',
      // Off: the decoders match control characters on purpose (GS1 FNC1/GS, ISO 15434 RS/GS/EOT),
      // as does the header and log sanitising.
      'no-control-regex': 'off',
    },
  },
  {
    // The browser console (console/): plain ES modules the browser loads as they are (no build, no
    // TypeScript), so no type information; the browser's globals are the environment.
    files: ['console/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'module',
      parserOptions: { projectService: false, program: null },
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'history',
          'location',
          'localStorage',
          'navigator',
          'fetch',
          'crypto',
          'URL',
          'URLSearchParams',
          'Blob',
          'FileReader',
          'Image',
          'AbortController',
          'AbortSignal',
          'indexedDB',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'Intl',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: layerZones }] },
  },
  {
    // Migrations are frozen in time and take Kysely<any> (STYLE.md, habit 4): no app types.
    files: ['src/platform/db/migrations/**', 'src/platform/db/migrate.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Off in tests: a response body (`res.json()`) is `any` by design and the test's expect() is the
    // check; typing every body read would add hundreds of casts that assert nothing. Test doubles
    // and failure messages take any value.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
  {
    // The plain JavaScript files (bin/, this config) run on Node.
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', console: 'readonly' } },
  },
)
