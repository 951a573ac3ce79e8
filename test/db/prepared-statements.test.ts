import { describe, expect, it } from 'vitest'
import { StatementNames } from '../../src/platform/db/prepared-statements.js'

describe('prepared statement names', () => {
  it('gives one text one stable name, and two texts two names', () => {
    const names = new StatementNames()
    const a = names.nameOf('select 1 where $1 = 1')
    expect(a).toMatch(/^mr_[A-Za-z0-9_-]{22}$/)
    expect(names.nameOf('select 1 where $1 = 1')).toBe(a)
    expect(names.nameOf('select 2 where $1 = 1')).not.toBe(a)
  })

  it('leaves transaction control and DDL unnamed', () => {
    const names = new StatementNames()
    for (const text of ['begin', 'commit', 'rollback', 'create table t (id int)', 'savepoint "s"'])
      expect(names.nameOf(text)).toBeUndefined()
    for (const text of [
      'SELECT 1',
      ' with x as (select 1) select * from x',
      'insert into t values ($1)',
      'update t set a = $1',
      'delete from t',
    ]) {
      expect(names.nameOf(text)).toBeDefined()
    }
  })

  it('stops naming new texts past its cap, and keeps the names it gave', () => {
    const names = new StatementNames(2)
    const first = names.nameOf('select 1')
    names.nameOf('select 2')
    expect(names.nameOf('select 3')).toBeUndefined()
    expect(names.nameOf('select 1')).toBe(first)
  })

  it('leaves over-long texts unnamed', () => {
    expect(new StatementNames(10, 20).nameOf(`select ${'1, '.repeat(20)}1`)).toBeUndefined()
  })
})
