import { registerCloneProjectRoute } from "./cloneProject.js";
import { registerExtDeviceSessionRoutes } from "./extDeviceSessions.js";
import type { HubRouter } from "./HubRouter.js";
import { registerJourneyRoutes } from "./journeyRoutes.js";
import { registerProjectExtraRoutes } from "./projectExtraRoutes.js";
import { registerSecretRoutes } from "./secretRoutes.js";
import { registerWebhookRoutes } from "./webhookRoutes.js";

/**
 * Webhooks, external devices' sessions, project secrets, journeys, notefile schemas, the AWS role
 * configuration, global event transformations and cloning projects (issue 29, points 3 to 6).
 */
export function registerIntegrationRoutes(router: HubRouter): void {
  registerWebhookRoutes(router);
  registerExtDeviceSessionRoutes(router);
  registerSecretRoutes(router);
  registerJourneyRoutes(router);
  registerProjectExtraRoutes(router);
  registerCloneProjectRoute(router);
}
