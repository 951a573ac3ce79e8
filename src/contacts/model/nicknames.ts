/**
 * English given names and the short forms and nicknames people go by, one group per line: a label
 * printed "BOB SMITH" is for the directory's "Robert Smith". A name in several groups ("al":
 * Albert, Alan, Alfred, Alexander) matches each of them.
 *
 * Source: written for mailroom from common English usage (no dataset of nicknames is published on
 * npm under a licence we can ship; the lists public genealogy sites keep are of the same kind).
 * Kept to names whose short forms are unambiguous enough to count as the same first name; a
 * facility adds its own per contact (`aliases`), which the matcher reads the same way.
 */
const GROUPS: readonly string[] = [
  'abigail abby abbie gail',
  'abraham abe bram',
  'albert al bert bertie',
  'alan allan allen al',
  'alexander alex alec al sandy xander',
  'alexandra alex alexa sandra sandy lexi',
  'alfred al alf alfie fred freddie',
  'andrew andy drew',
  'angela angie',
  'anthony tony ant',
  'antonio tony toni',
  'arthur art artie',
  'barbara barb barbie babs',
  'benjamin ben benny benji',
  'bernard bernie',
  'beverly bev',
  'bradley brad',
  'catherine cathy cat kate katie kathy',
  'katherine kathy kate katie kat kitty',
  'kathleen kathy kate katie',
  'charles charlie chuck chas chaz',
  'christina chris christy tina',
  'christine chris christy tina',
  'christopher chris kit topher',
  'cynthia cindy',
  'daniel dan danny',
  'danielle dani',
  'david dave davy',
  'deborah debbie deb debra',
  'dennis denny',
  'donald don donnie',
  'dorothy dot dottie',
  'douglas doug',
  'edward ed eddie ted teddy ned',
  'edwin ed eddie',
  'elizabeth liz lizzie beth betty betsy eliza libby lisa',
  'emily em emmy',
  'eugene gene',
  'frances fran frannie',
  'francis frank fran',
  'franklin frank',
  'frederick fred freddie fritz',
  'gabriel gabe',
  'gabrielle gabby',
  'gerald gerry jerry',
  'gregory greg',
  'harold hal harry',
  'henry hank harry hal',
  'herbert herb bert',
  'jacob jake',
  'james jim jimmy jamie',
  'janet jan',
  'jeffrey jeff',
  'jennifer jen jenny jenn',
  'jessica jess jessie',
  'john jack johnny jon',
  'jonathan jon jonny nathan',
  'joseph joe joey',
  'josephine jo josie',
  'joshua josh',
  'judith judy jude',
  'kenneth ken kenny',
  'kimberly kim',
  'lawrence larry laurie',
  'leonard leo len lenny',
  'louis lou louie',
  'margaret maggie meg peggy marge margie greta',
  'matthew matt matty',
  'michael mike mikey mick mickey',
  'michelle shelly',
  'nathaniel nate nathan nat',
  'nicholas nick nicky',
  'nicole nikki',
  'pamela pam',
  'patricia pat patty trish tricia',
  'patrick pat paddy',
  'peter pete',
  'philip phil',
  'rebecca becky becca',
  'richard rick ricky dick rich richie',
  'robert bob bobby rob robbie bert',
  'ronald ron ronnie',
  'samantha sam sammy',
  'samuel sam sammy',
  'stephen steve stevie',
  'steven steve stevie',
  'susan sue susie suzy',
  'suzanne sue suzy',
  'terence terry',
  'theresa teresa terry tess tessa',
  'thomas tom tommy',
  'timothy tim timmy',
  'valerie val',
  'victoria vicky tori',
  'vincent vince vinny',
  'walter walt wally',
  'william bill billy will willy liam',
  'zachary zach zack',
]

const GROUPS_OF = new Map<string, number[]>()
GROUPS.forEach((line, group) => {
  for (const name of line.split(' ')) GROUPS_OF.set(name, [...(GROUPS_OF.get(name) ?? []), group])
})

/** True when two first names (lower case, accents folded) are the same name or forms of one name. */
export function sameGivenName(a: string, b: string): boolean {
  if (a === b) return true
  const ga = GROUPS_OF.get(a)
  const gb = GROUPS_OF.get(b)
  return !!ga && !!gb && ga.some((g) => gb.includes(g))
}

/** Every name of the groups `name` belongs to (itself included). */
export function givenNameForms(name: string): string[] {
  const forms = new Set([name])
  for (const g of GROUPS_OF.get(name) ?? []) for (const n of GROUPS[g]!.split(' ')) forms.add(n)
  return [...forms]
}
