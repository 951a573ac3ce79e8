import { registerErrors } from '../../platform/kit/errors.js'

/** The sites domain's refusals, in the one catalogue (platform/kit/errors.ts). */
export const SITE_ERRORS = registerErrors({
  SITE_NOT_FOUND: { status: 404, errorCode: 'not_found', additionalCode: 'SIT-4040', message: 'No such inbound site.' },
  SITE_NAME_TAKEN: {
    status: 409,
    errorCode: 'already_exists',
    additionalCode: 'SIT-4090',
    message: 'A sibling site already has this name.',
  },
  SITE_HAS_CHILDREN: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'SIT-4091',
    message: 'The site has active child sites; delete or deactivate them first.',
  },
})
