/** `rln-chatops doctor`: checks the configuration, the service, the webhook key and the database, and says what to fix. */
export { runDoctor, type DoctorIo } from './run-doctor.js';
