import { registerErrors } from '../../platform/kit/errors.js'

export const PACKAGE_ERRORS = registerErrors({
  PACKAGE_NOT_FOUND: { status: 404, errorCode: 'not_found', additionalCode: 'PKG-4040', message: 'No such package.' },
  TRACKING_NUMBER_EXISTS: {
    status: 409,
    errorCode: 'already_exists',
    additionalCode: 'PKG-4090',
    message: 'An active package already has this tracking number.',
  },
  PACKAGE_ARCHIVED: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'PKG-4091',
    message: 'The package is archived; un-archive it before updating.',
  },
})
