import type { Migration } from 'kysely'
import * as m0001 from './0001_auth.js'
import * as m0002 from './0002_receiving.js'
import * as m0003 from './0003_carrier_catalogue.js'
import * as m0004 from './0004_companions.js'
import * as m0005 from './0005_webhooks.js'
import * as m0006 from './0006_search.js'
import * as m0007 from './0007_search_indexes.js'
import * as m0008 from './0008_webhooks_tuning.js'
import * as m0009 from './0009_search_statistics.js'
import * as m0010 from './0010_package_tallies.js'
import * as m0011 from './0011_decoder_couriers.js'
import * as m0012 from './0012_reported_by.js'
import * as m0013 from './0013_rate_limits.js'
import * as m0014 from './0014_image_blobs.js'
import * as m0015 from './0015_auth_failures.js'
import * as m0016 from './0016_notifications.js'
import * as m0020 from './0020_pickup_codes.js'
import * as m0021 from './0021_pickups.js'
import * as m0022 from './0022_waiting_code_index.js'
import * as m0024 from './0024_users.js'
import * as m0025 from './0025_site_opening_hours.js'
import * as m0026 from './0026_notification_language.js'
import * as m0027 from './0027_pickup_code_checks.js'
import * as m0028 from './0028_arrival_queue.js'
import * as m0030 from './0030_session_ids.js'
import * as m0031 from './0031_client_secret_version.js'
import * as m0032 from './0032_contact_language.js'
import * as m0033 from './0033_pending_events_by_sub.js'
import * as m0039 from './0039_site_handover_proof.js'
import * as m0040 from './0040_notified_events.js'
import * as m0041 from './0041_batch_reminders.js'
import * as m0043 from './0043_pickup_typed_signature.js'
import * as m0046 from './0046_password_change_required.js'
import * as m0051 from './0051_contact_directory_fields.js'
import * as m0052 from './0052_restores.js'
import * as m0054 from './0054_recipient_match_indexes.js'
import * as m0055 from './0055_scan_issues.js'
import * as m0057 from './0057_directory.js'
import * as m0058 from './0058_departures_noted.js'
import * as m0060 from './0060_console_sso.js'
import * as m0061 from './0061_sso_domain_grants.js'
import * as m0062 from './0062_contact_match_words_by_statement.js'
import * as m0065 from './0065_ldap_run_lease_and_guard.js'
import * as m0066 from './0066_sso_identities.js'
import * as m0067 from './0067_sso_grandfathered_domains.js'
import * as m0068 from './0068_sms.js'
import * as m0071 from './0071_shelves.js'
import * as m0072 from './0072_report_tallies.js'
import * as m0074 from './0074_report_deletes.js'
import * as m0075 from './0075_sms_send_marker.js'
import * as m0076 from './0076_contact_alias_fold.js'
import * as m0077 from './0077_parcel_flags_and_fees.js'
import * as m0078 from './0078_holds_returns.js'
import * as m0079 from './0079_exception_indexes.js'
import * as m0080 from './0080_report_days.js'
import * as m0081 from './0081_site_quiet_hours.js'
import * as m0082 from './0082_contact_match_words.js'

/** Every migration, in order. Listed explicitly so the same code runs from src (tsx) and dist. */
export const migrations: Record<string, Migration> = {
  '0001_auth': m0001,
  '0002_receiving': m0002,
  '0003_carrier_catalogue': m0003,
  '0004_companions': m0004,
  '0005_webhooks': m0005,
  '0006_search': m0006,
  '0007_search_indexes': m0007,
  '0008_webhooks_tuning': m0008,
  '0009_search_statistics': m0009,
  '0010_package_tallies': m0010,
  '0011_decoder_couriers': m0011,
  '0012_reported_by': m0012,
  '0013_rate_limits': m0013,
  '0014_image_blobs': m0014,
  '0015_auth_failures': m0015,
  '0016_notifications': m0016,
  '0020_pickup_codes': m0020,
  '0021_pickups': m0021,
  '0022_waiting_code_index': m0022,
  '0024_users': m0024,
  '0025_site_opening_hours': m0025,
  '0026_notification_language': m0026,
  '0027_pickup_code_checks': m0027,
  '0028_arrival_queue': m0028,
  '0030_session_ids': m0030,
  '0031_client_secret_version': m0031,
  '0032_contact_language': m0032,
  '0033_pending_events_by_sub': m0033,
  '0039_site_handover_proof': m0039,
  '0040_notified_events': m0040,
  '0041_batch_reminders': m0041,
  '0043_pickup_typed_signature': m0043,
  '0046_password_change_required': m0046,
  '0051_contact_directory_fields': m0051,
  '0052_restores': m0052,
  '0054_recipient_match_indexes': m0054,
  '0055_scan_issues': m0055,
  '0057_directory': m0057,
  '0058_departures_noted': m0058,
  '0060_console_sso': m0060,
  '0061_sso_domain_grants': m0061,
  '0062_contact_match_words_by_statement': m0062,
  '0065_ldap_run_lease_and_guard': m0065,
  '0066_sso_identities': m0066,
  '0067_sso_grandfathered_domains': m0067,
  '0068_sms': m0068,
  '0071_shelves': m0071,
  '0072_report_tallies': m0072,
  '0074_report_deletes': m0074,
  '0075_sms_send_marker': m0075,
  '0076_contact_alias_fold': m0076,
  '0077_parcel_flags_and_fees': m0077,
  '0078_holds_returns': m0078,
  '0079_exception_indexes': m0079,
  '0080_report_days': m0080,
  '0081_site_quiet_hours': m0081,
  '0082_contact_match_words': m0082,
}
