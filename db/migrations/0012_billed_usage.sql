ALTER TABLE `attempts` ADD `tokens_in` integer;--> statement-breakpoint
ALTER TABLE `attempts` ADD `tokens_out` integer;--> statement-breakpoint
ALTER TABLE `attempts` ADD `cost` real;--> statement-breakpoint
ALTER TABLE `games` ADD `tokens_cached` integer;--> statement-breakpoint
ALTER TABLE `games` ADD `tokens_reasoning` integer;