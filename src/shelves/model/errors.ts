import { registerErrors } from '../../platform/kit/errors.js'

export const SHELF_ERRORS = registerErrors({
  SHELF_NOT_FOUND: { status: 404, errorCode: 'not_found', additionalCode: 'SHF-4040', message: 'No such shelf.' },
  SHELF_AUDIT_NOT_FOUND: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'SHF-4041',
    message: 'No such shelf audit.',
  },
  SHELF_SITE_NOT_STORAGE: {
    status: 400,
    errorCode: 'validation_error',
    additionalCode: 'SHF-4001',
    message: 'A shelf is a site below a top-tier site (a building, room, mail stop, shelf or locker).',
  },
})
