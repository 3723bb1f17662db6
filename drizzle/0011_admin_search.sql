CREATE INDEX "activations_search_idx" ON "activations" USING gin ("hostname" gin_trgm_ops,"id" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "activations_public_ip_idx" ON "activations" USING btree (("public_ip"::inet));--> statement-breakpoint
CREATE INDEX "install_codes_search_idx" ON "install_codes" USING gin ("hint" gin_trgm_ops,"id" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "servers_search_idx" ON "servers" USING gin ("hostname" gin_trgm_ops,"id" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "servers_public_ip_idx" ON "servers" USING btree (("public_ip"::inet));--> statement-breakpoint
CREATE INDEX "servers_machine_id_idx" ON "servers" USING btree ("machine_id");--> statement-breakpoint
CREATE INDEX "servers_ssh_fingerprint_idx" ON "servers" USING btree ("ssh_fingerprint");