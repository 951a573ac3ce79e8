import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { renderEnvExample, withConfigTables } from './render.js'

// `npm run config:docs`: rewrites .env.example and the tables of docs/configuration.md.
const root = path.resolve(import.meta.dirname, '../../..')
const page = path.join(root, 'docs/configuration.md')
writeFileSync(path.join(root, '.env.example'), renderEnvExample())
writeFileSync(page, withConfigTables(readFileSync(page, 'utf8')))
process.stdout.write('wrote .env.example and docs/configuration.md\n')
