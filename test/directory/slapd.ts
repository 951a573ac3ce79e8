import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, connect } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'

/**
 * A private OpenLDAP server for a test: Debian's slapd (installed by .ci/run) on a free port,
 * its own directory in a temporary folder, seeded offline with slapadd. The reader account is
 * bound by a size limit as real directories are (Active Directory's MaxPageSize is 1,000), so a
 * search only gets everyone page by page (RFC 2696).
 */
export interface Slapd {
  url: string
  baseDn: string
  peopleDn: string
  adminDn: string
  adminPassword: string
  readerDn: string
  readerPassword: string
  /** Stops answering (SIGSTOP): a run reading the directory waits, with its lease, until resume. */
  pause(): void
  resume(): void
  stop(): Promise<void>
}

export interface Person {
  uid: string
  cn: string
  givenName: string
  sn: string
  mail?: string
  telephoneNumber?: string
  employeeNumber?: string
  roomNumber?: string
  o?: string
}

export const SIZE_LIMIT = 1000
const SBIN = ['/usr/sbin', '/usr/local/sbin', '/usr/bin']

function tool(name: string): string {
  for (const dir of SBIN) {
    const p = path.join(dir, name)
    if (spawnSync('test', ['-x', p]).status === 0) return p
  }
  throw new Error(`${name} not found: install Debian's slapd (apt-get install slapd ldap-utils)`)
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.on('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

async function waitForPort(port: number, ms: number): Promise<void> {
  const until = Date.now() + ms
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1')
      c.once('connect', () => {
        c.destroy()
        resolve(true)
      })
      c.once('error', () => resolve(false))
    })
    if (ok) return
    if (Date.now() > until) throw new Error(`slapd did not listen on ${port}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

function personLdif(p: Person, peopleDn: string): string {
  const lines = [
    `dn: uid=${p.uid},${peopleDn}`,
    'objectClass: inetOrgPerson',
    `uid: ${p.uid}`,
    `cn: ${p.cn}`,
    `givenName: ${p.givenName}`,
    `sn: ${p.sn}`,
  ]
  for (const k of ['mail', 'telephoneNumber', 'employeeNumber', 'roomNumber', 'o'] as const)
    if (p[k]) lines.push(`${k}: ${p[k]}`)
  return `${lines.join('\n')}\n\n`
}

/** `count` people: uid p00001…, with every mapped attribute. */
export function seedPeople(count: number, from = 1): Person[] {
  return Array.from({ length: count }, (_, i) => {
    const n = String(from + i).padStart(5, '0')
    return {
      uid: `p${n}`,
      cn: `Person ${n}`,
      givenName: 'Person',
      sn: n,
      mail: `p${n}@example.org`,
      telephoneNumber: `+1 555 ${n}`,
      employeeNumber: `E${n}`,
      roomNumber: `R-${n}`,
      o: 'Example Corp',
    }
  })
}

export async function startSlapd(people: Person[]): Promise<Slapd> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mailroom-slapd-'))
  const data = path.join(dir, 'data')
  mkdirSync(data)
  const baseDn = 'dc=example,dc=org'
  const peopleDn = `ou=people,${baseDn}`
  const adminDn = `cn=admin,${baseDn}`
  const readerDn = `cn=reader,${baseDn}`
  const adminPassword = 'admin-secret'
  const readerPassword = 'reader-secret'
  const conf = path.join(dir, 'slapd.conf')
  writeFileSync(
    conf,
    [
      'include /etc/ldap/schema/core.schema',
      'include /etc/ldap/schema/cosine.schema',
      'include /etc/ldap/schema/inetorgperson.schema',
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      `pidfile ${path.join(dir, 'slapd.pid')}`,
      `sizelimit size.soft=${SIZE_LIMIT} size.hard=${SIZE_LIMIT} size.prtotal=unlimited`,
      'database mdb',
      'maxsize 1073741824',
      `suffix "${baseDn}"`,
      `rootdn "${adminDn}"`,
      `rootpw ${adminPassword}`,
      `directory ${data}`,
      'access to attrs=userPassword by anonymous auth by * none',
      'access to * by users read by anonymous auth',
      '',
    ].join('\n'),
  )
  const ldif = [
    `dn: ${baseDn}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n\n`,
    `dn: ${peopleDn}\nobjectClass: organizationalUnit\nou: people\n\n`,
    `dn: ${readerDn}\nobjectClass: simpleSecurityObject\nobjectClass: organizationalRole\ncn: reader\nuserPassword: ${readerPassword}\n\n`,
    ...people.map((p) => personLdif(p, peopleDn)),
  ].join('')
  const ldifPath = path.join(dir, 'seed.ldif')
  writeFileSync(ldifPath, ldif)
  const add = spawnSync(tool('slapadd'), ['-q', '-f', conf, '-l', ldifPath], { encoding: 'utf8' })
  if (add.status !== 0) throw new Error(`slapadd failed: ${add.stderr}`)
  const port = await freePort()
  const url = `ldap://127.0.0.1:${port}`
  const proc: ChildProcess = spawn(tool('slapd'), ['-f', conf, '-h', `${url}/`, '-d', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  try {
    await waitForPort(port, 15_000)
  } catch (err) {
    proc.kill('SIGKILL')
    throw new Error(`${(err as Error).message}: ${stderr}`, { cause: err })
  }
  return {
    url,
    baseDn,
    peopleDn,
    adminDn,
    adminPassword,
    readerDn,
    readerPassword,
    pause: () => void proc.kill('SIGSTOP'),
    resume: () => void proc.kill('SIGCONT'),
    async stop() {
      proc.kill('SIGCONT')
      await new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve()
        proc.once('exit', () => resolve())
        proc.kill('SIGTERM')
      })
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
