; AI2-THOR domain of l3mp: iTHOR scenes as a world-state graph, and the agent's high-level actions.
;
; Every AI2-THOR object type is a PDDL type (CounterTop -> counter_top), grouped under what it is for.
; Things the metadata marks pickupable are items; everything that stays in place is a fixture.
; What one object can do comes from its own metadata (openable, toggleable, ...) as static facts, because
; AI2-THOR decides it per object, not per type (a Box is openable, a Book sometimes).
; Every predicate is one kind of knowledge-graph triplet:
;   unary   (dirty mug_1)        -> (mug_1, dirty, true)
;   binary  (in apple_1 fridge_1) -> (apple_1, in, fridge_1)
; Closed world: a fact that is not in the graph is false.
; World-state rules (the agent holds at most one thing, ...) are in thor.rules.yaml.
; l3mp/thor/ turns event metadata into these facts and these actions into controller.step calls.
(define (domain thor)
  (:requirements :strips :typing :negative-preconditions :conditional-effects :universal-preconditions
                 :existential-preconditions :disjunctive-preconditions)
  (:types
    agent thing liquid - object
    robot - agent
    item fixture - thing
    ; items: what the agent can pick up
    food drinkware dishware cookware utensil kitchen_supply bathroom_supply electronics office_item decor
      sports_item - item
    apple apple_sliced bread bread_sliced egg egg_cracked lettuce lettuce_sliced potato potato_sliced tomato
      tomato_sliced - food
    cup mug bottle wine_bottle watering_can - drinkware
    bowl plate - dishware
    pan pot kettle - cookware
    blade fork spoon spatula ladle - utensil
    knife butter_knife - blade
    pepper_shaker salt_shaker dish_sponge paper_towel_roll aluminum_foil - kitchen_supply
    soap_bar soap_bottle toilet_paper towel hand_towel spray_bottle plunger scrub_brush tissue_box cloth
      - bathroom_supply
    cell_phone laptop remote_control cd alarm_clock watch - electronics
    book pen pencil newspaper credit_card key_chain box - office_item
    vase statue candle table_top_decor teddy_bear pillow footstool - decor
    baseball_bat basket_ball tennis_racket dumbbell boots - sports_item
    ; fixtures: what stays where it is
    furniture storage appliance plumbing lighting structure - fixture
    arm_chair bed chair coffee_table counter_top desk dining_table dog_bed dresser ottoman shelf shelving_unit
      side_table sofa stool tv_stand - furniture
    cabinet drawer safe laundry_hamper garbage_can - storage
    fridge microwave coffee_machine toaster stove_burner stove_knob television desktop - appliance
    sink sink_basin bathtub bathtub_basin toilet faucet shower_head toilet_paper_hanger towel_holder
      hand_towel_holder - plumbing
    light_switch desk_lamp floor_lamp - lighting
    floor window blinds curtains painting poster mirror shower_curtain shower_door shower_glass room_decor
      house_plant vacuum_cleaner garbage_bag - structure)

  (:constants
    the_robot - robot
    water coffee wine - liquid)

  (:predicates
    ; the agent
    (at ?a - agent ?t - thing)            ; the agent stands at the thing's interaction pose
    (holding ?a - agent ?i - item)
    (hand_empty ?a - agent)
    ; where things are: the receptacle a thing is directly in or on (parentReceptacles)
    (in ?x - thing ?r - thing)
    ; states (event metadata)
    (is_open ?t - thing)                  ; isOpen
    (toggled_on ?t - thing)               ; isToggled
    (dirty ?t - thing)                    ; isDirty
    (sliced ?t - thing)                   ; isSliced
    (cooked ?t - thing)                   ; isCooked
    (broken ?t - thing)                   ; isBroken
    (hot ?t - thing)                      ; temperature Hot
    (cold ?t - thing)                     ; temperature Cold
    (filled_with ?t - thing ?l - liquid)  ; isFilledWithLiquid and fillLiquid
    ; what an object can do (its metadata's flags; static)
    (receptacle ?t - thing)
    (openable ?t - thing)
    (toggleable ?t - thing)
    (sliceable ?t - thing)
    (dirtyable ?t - thing)
    (fillable ?t - thing)                 ; canFillWithLiquid
    (cookable ?t - thing)
    ; fixed links
    (controls ?k - thing ?t - thing)      ; controlledObjects: a stove knob its burner, a switch its lights
    (faucet_of ?f - faucet ?b - thing))   ; the faucet that runs into a sink or bathtub basin

  (:action goto
    :parameters (?a - agent ?from - thing ?to - thing)
    :precondition (and (at ?a ?from) (not (at ?a ?to)))
    :effect (and (not (at ?a ?from)) (at ?a ?to)))

  (:action pickup
    :parameters (?a - agent ?i - item ?r - thing)
    :precondition (and (at ?a ?i) (in ?i ?r) (hand_empty ?a) (not (openable ?r)))
    :effect (and (not (in ?i ?r)) (not (hand_empty ?a)) (holding ?a ?i)))

  (:action pickup_from_open
    :parameters (?a - agent ?i - item ?r - thing)
    :precondition (and (at ?a ?i) (in ?i ?r) (hand_empty ?a) (openable ?r) (is_open ?r))
    :effect (and (not (in ?i ?r)) (not (hand_empty ?a)) (holding ?a ?i)))

  (:action put
    :parameters (?a - agent ?i - item ?r - thing)
    :precondition (and (at ?a ?r) (holding ?a ?i) (receptacle ?r) (not (openable ?r)))
    :effect (and (not (holding ?a ?i)) (hand_empty ?a) (in ?i ?r)))

  (:action put_in_open
    :parameters (?a - agent ?i - item ?r - thing)
    :precondition (and (at ?a ?r) (holding ?a ?i) (receptacle ?r) (openable ?r) (is_open ?r))
    :effect (and (not (holding ?a ?i)) (hand_empty ?a) (in ?i ?r)))

  (:action open
    :parameters (?a - agent ?t - thing)
    :precondition (and (at ?a ?t) (openable ?t) (not (is_open ?t)))
    :effect (is_open ?t))

  (:action close
    :parameters (?a - agent ?t - thing)
    :precondition (and (at ?a ?t) (openable ?t) (is_open ?t))
    :effect (not (is_open ?t)))

  (:action toggle_on
    :parameters (?a - agent ?t - thing)
    :precondition (and (at ?a ?t) (toggleable ?t) (not (toggled_on ?t)))
    :effect (toggled_on ?t))

  (:action toggle_off
    :parameters (?a - agent ?t - thing)
    :precondition (and (at ?a ?t) (toggleable ?t) (toggled_on ?t))
    :effect (not (toggled_on ?t)))

  ; AI2-THOR slices a thing where it lies, with a knife in hand
  (:action slice
    :parameters (?a - agent ?f - item ?k - blade ?r - thing)
    :precondition (and (at ?a ?f) (in ?f ?r) (holding ?a ?k) (sliceable ?f) (not (sliced ?f)))
    :effect (sliced ?f))

  ; put the held item in a basin, run its faucet, turn it off, pick the item up: clean, and full of water
  (:action wash
    :parameters (?a - agent ?i - item ?b - thing ?f - faucet)
    :precondition (and (at ?a ?b) (holding ?a ?i) (faucet_of ?f ?b) (not (toggled_on ?f)))
    :effect (and (not (dirty ?i))
                 (when (fillable ?i) (and (filled_with ?i water) (not (filled_with ?i coffee))
                                          (not (filled_with ?i wine))))))

  ; put the held item in the closed microwave, run it, take the item out and close it again
  (:action heat_in_microwave
    :parameters (?a - agent ?i - item ?m - microwave)
    :precondition (and (at ?a ?m) (holding ?a ?i) (not (is_open ?m)) (not (toggled_on ?m)))
    :effect (and (hot ?i) (not (cold ?i)) (when (cookable ?i) (cooked ?i))))

  ; put the held item on a free burner, turn its knob on and off, pick the item up
  (:action heat_on_stove
    :parameters (?a - agent ?i - item ?b - stove_burner ?k - stove_knob)
    :precondition (and (at ?a ?b) (holding ?a ?i) (controls ?k ?b) (not (toggled_on ?k))
                       (not (exists (?x - thing) (in ?x ?b))))
    :effect (and (hot ?i) (not (cold ?i)) (when (cookable ?i) (cooked ?i))))

  ; put the held item in the closed fridge, close it, take the item out and close it again
  (:action cool_in_fridge
    :parameters (?a - agent ?i - item ?f - fridge)
    :precondition (and (at ?a ?f) (holding ?a ?i) (not (is_open ?f)))
    :effect (and (cold ?i) (not (hot ?i))))

  ; put the held cup in the empty coffee machine, run it, pick the cup up
  (:action fill_with_coffee
    :parameters (?a - agent ?i - item ?c - coffee_machine)
    :precondition (and (at ?a ?c) (holding ?a ?i) (fillable ?i) (not (toggled_on ?c))
                       (not (exists (?x - thing) (in ?x ?c))))
    :effect (and (filled_with ?i coffee) (not (filled_with ?i water)) (not (filled_with ?i wine)))))
