/**
 * UPU S10 country codes and the designated postal operator that issues items under each: the
 * posting operator an S10 number names. A code outside this list is no S10 item, whatever its check
 * digit (tracking_number_data, MIT, gathers the list from the UPU member directory).
 * Packed as "CC|Operator;" pairs, unpacked once.
 */
const PACKED =
  'AE|Emirates Post;AF|Afghan Post;AG|Antigua Postal Services;AL|Posta Shqiptare;' +
  'AM|Haypost - Armenian Postal Service;AO|Correios de Angola;AR|Correo Argentino;AT|Österreichische Post AG;' +
  'AU|Australia Post;AZ|Azarpoçt;BA|JP BH POŠTA d.o.o. Sarajevo;BB|Barbados Postal Service;' +
  'BD|Bangladesh Post Office;BE|bpost;BF|SONAPOST;BG|Bulgarian Posts;BH|Bahrain Post;' +
  'BI|RNP – Régie nationale des postes;BJ|La Poste du Bénin;BN|Brunei Postal Services;' +
  'BO|ECOBOL – Empresa de Correos de Bolivia;BR|CORREIOS;BS|Bahamas Postal Service;BT|Bhutan Post;' +
  'BW|BotswanaPost;BY|Belpochta;BZ|Belize Postal Service;CA|Canada Post;' +
  'CD|Congolese Posts and Telecommunications Corporation;' +
  "CF|Direction des services postaux de l'Office National des Postes et de l'Épargne;" +
  'CG|Congolese Posts and Savings Company;CH|La Poste Suisse;CI|La Poste de Côte d’Ivoire;CL|Correos de Chile;' +
  'CM|CAMPOST – Cameroon Postal Services;CN|China Post;CO|4-72 La Red Postal de Colombia;' +
  'CR|Correos de Costa Rica;CU|Ministerio de la Informática y las comunicaciones de Cuba;' +
  'CV|Correios de Cabo Verde;CY|Cyprus Post;CZ|Česká Pošta;DE|Deutsche Post;DJ|La Poste de Djibouti;' +
  'DK|Post Danmark;DM|General Post Office;DO|INPOSDOM – Instituto Postal Dominicano;DZ|Algérie Poste;' +
  'EC|Correos del Ecuador;EE|Eesti Post;EG|Egypt Post;ER|Eritrean Postal Service;ES|Correos y Telégrafos;' +
  'ET|Ethiopian postal service;FI|Posti Ltd;FJ|Post Fiji;FR|La Poste;GA|La Poste SA;GB|Royal Mail Group plc;' +
  'GD|Grenada Postal Corporation;GE|Georgian Post;GH|Ghana Post;GM|Gambia Postal services Corporation;' +
  'GN|Office de la poste guinéenne;GQ|Equatorial Guinea Post;GR|Hellenic Post ELTA;GT|El Correo;' +
  'GW|Correios da Guiné-Bissau;GY|Guyana Post Office Corporation;HK|Hong Kong Post;HN|Honducor;' +
  'HR|Hrvatska Posta - Croatian Post;HT|Office des Postes d’Haiti;HU|Magyar Posta;ID|Pos Indonesia;' +
  'IE|AN Post - regulatory and International affairs Unit;IL|Israel Post;IN|India Post;IQ|Iraqi Post;' +
  'IR|Islamic Republic of Iran Post Co.;IS|Íslandspóstur hf;IT|Poste Italiane;JM|Jamaica Post;JO|Jordan Post;' +
  'JP|Japan Post;KE|Posta Kenya;KG|Kyrgyz Post;KH|Ministry of Posts and Telecommunications;' +
  'KI|Kiribati Public Service Public;KM|Societé Nationale des Postes et des Services Financiers;' +
  'KN|St. Kitts & Nevis Postal Services;KP|Korea Post and Telecommunications Corporation;KR|Korea Post;' +
  'KW|Kuwait Ministry of Communications;KZ|Kazpost;LA|Entreprise des Postes Lao;LB|LibanPost;' +
  'LC|Saint Lucia Postal Service;LI|Liechtensteinische Post AG;LK|Sri Lanka Post;' +
  'LR|Ministry of Posts and Telecommunications;LS|Lesotho Post;LT|Lietuvos Pastas;LU|Post;LV|Latvia Post;' +
  'LY|Libya Post;MA|Barid Al-Maghrib – Poste Maroc;MC|La Poste Monaco;MD|Posta Moldovei;ME|Pošta Crne Gore;' +
  'MG|PAOSITRA MALAGASY;MK|Macedonian Post & Telecommunications;ML|Office national des postes;' +
  'MM|Myanmar Post and Telecommunications Department;MN|Mongol Post - Монгол шуудан компани;' +
  'MR|MAURIPOST – Société Mauritanienne des Postes;MT|Malta Post;MU|Mauritius Post;MV|Maldives Post;' +
  'MW|Malawi Posts Corporation;MX|Correos de México;MY|Pos Malaysia;MZ|Correios de Moçambique;NA|NAM Post;' +
  'NE|Niger Poste;NG|Nigerian Postal Service;NI|Correos de Nicaragua;NL|PostNL;NO|Posten;' +
  'NP|Nepal Postal Services;NR|Nauru General Post Office;NZ|New Zealand Post;OM|Oman Post;' +
  'PA|Correos de Panamá;PE|SERPOST – Servicios Postales del Perú;PG|Post PNG;' +
  'PH|PHLPOST – Philippine Postal Corporation;PK|Pakistan Post;PL|Poczta Polska;PT|CTT - Correios;' +
  'PY|Correo Paraguayo;QA|Qatar Post;RO|Posta Romana;RS|PTT Communications "Srbija";RU|Russian Post;' +
  'RW|National Post Office (Iposita);SA|Saudi Post;SB|Solomon Post;SC|Seychelles Postal Service;SD|Sudapost;' +
  'SE|Posten Sweden Post;SG|SingPost;SI|Posta Slovenije d.o.o.;SK|Slovenská Posta;' +
  'SL|Sierra Leone Postal Services;SM|Poste San Marino;SN|La Poste Senegal;SO|Somali Post;SR|SURPOST;' +
  'SS|Minister of Telecommunication and Postal Services;ST|Correios de São Tomé e Príncipe;' +
  'SV|Correos de El Salvador;SY|Syrian Post;SZ|Swaziland Posts & Telecommunications Corporation;' +
  "TD|Société tchadienne des postes et de l'épargne;TG|La Poste du Togo;TH|Thailand Post;" +
  'TJ|Tajikistan’s communications service agency;TL|Correios de Timor Leste;TM|Turkmenpost;' +
  'TN|La Poste Tunisienne;TO|Tonga Post;TR|Turkey Post;TT|Trinidad and Tobago Postal Corporation;' +
  'TV|Tuvalu Philatelic Bureau;TZ|Tanzania Posts Corporation;UA|Ukrposhta;UG|Posta Uganda;' +
  'US|United States Postal Service;UY|Correo Uruguayo;UZ|Post of Uzbekistan;VA|Vatican post;' +
  'VC|SVG Postal Corporation;VE|IPOSTEL – Instituto Postal Telegráfico de Venezuela;' +
  'VN|VNPT – Vietnam Posts and Telecommunications Group;VU|Vanuatu Post;WS|Samoa Post;YE|Yemen Post;' +
  'ZA|South African Post Office;ZM|Zambia Postal Services Corporation (ZAMPOST);ZW|Zimpost – Zimbabwe Posts;'

export const S10_POSTS: ReadonlyMap<string, string> = new Map(
  PACKED.split(';')
    .filter((p) => p !== '')
    .map((p) => [p.slice(0, 2), p.slice(3)] as const),
)
